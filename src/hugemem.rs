//! Big zero-filled tables on transparent huge pages.
//!
//! A hash table probe is one random access into megabytes or gigabytes. With 4 KiB pages nearly
//! every probe also misses the TLB, and the page walk costs as much as the cache miss itself
//! (measured: 15 % of the search's time on its table; on the mate solver's 8 GiB table the
//! prefetch loop over the children stalled on page walks). So a table lives in one allocation
//! aligned to 2 MiB and, on Linux, marked for transparent huge pages (`madvise(MADV_HUGEPAGE)`)
//! before it is first touched — the first touch (the zero fill) is what faults the pages in.
//! YaneuraOu and Stockfish allocate their tables the same way. Elsewhere (and when the kernel
//! has no huge page to give) the pages are ordinary ones: only the speed differs.
//!
//! Shared by the search's table (`search::tt`) and the mate solver's (`mate::tt`); a leaf
//! module (it uses nothing of the crate).

use std::alloc::Layout;
use std::ptr::NonNull;

/// Alignment of every table (the x86-64 huge page size).
pub const HUGE_PAGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int)
        -> std::ffi::c_int;
}
#[cfg(target_os = "linux")]
const MADV_HUGEPAGE: std::ffi::c_int = 14;

/// A type for which all-zero bytes are a valid value.
///
/// # Safety
///
/// Implement only for types made of integers, atomics and arrays of them (no references, no
/// `NonNull`, no enums without a zero variant, no padding-sensitive invariants).
pub unsafe trait Zeroable: Sized {}

/// A fixed-length array of `T`, zero-filled, aligned to [`HUGE_PAGE`] and advised for huge
/// pages (see the module doc). Derefs to `[T]`.
pub struct HugeTable<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: `HugeTable` owns its allocation like a `Box<[T]>`.
unsafe impl<T: Zeroable + Send> Send for HugeTable<T> {}
// SAFETY: as above; shared access only hands out `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for HugeTable<T> {}

impl<T: Zeroable> HugeTable<T> {
    fn layout(len: usize) -> Layout {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .expect("table size fits usize");
        Layout::from_size_align(bytes, HUGE_PAGE.max(std::mem::align_of::<T>()))
            .expect("table size fits a layout")
    }

    /// `len` (at least 1) zeroed elements.
    pub fn new(len: usize) -> HugeTable<T> {
        let len = len.max(1);
        let layout = Self::layout(len);
        if layout.size() == 0 {
            // A zero-sized `T`: nothing to allocate.
            return HugeTable {
                ptr: NonNull::dangling(),
                len,
            };
        }
        // SAFETY: the layout has a non-zero size (checked above).
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        // SAFETY: the range is our own fresh allocation; madvise only changes how its pages
        // are backed (a failure leaves ordinary pages, which is fine).
        unsafe {
            madvise(raw.cast(), layout.size(), MADV_HUGEPAGE);
        }
        // SAFETY: `raw` is valid for `layout.size()` bytes; zero bytes are a valid `T`
        // (`Zeroable`). This first touch is what faults the (huge) pages in.
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        HugeTable { ptr, len }
    }
}

impl<T: Zeroable> std::ops::Deref for HugeTable<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialised elements owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> std::ops::DerefMut for HugeTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for HugeTable<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len);
        if layout.size() != 0 {
            // SAFETY: allocated in `new` with this very layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    #[repr(C, align(64))]
    struct Line {
        a: [u64; 8],
    }
    // SAFETY: integers only.
    unsafe impl Zeroable for Line {}

    #[test]
    fn zeroed_aligned_and_writable() {
        let mut t: HugeTable<Line> = HugeTable::new(1000);
        assert_eq!(t.len(), 1000);
        assert_eq!(t.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(t.iter().all(|l| l.a == [0; 8]));
        t[999].a[7] = 5;
        assert_eq!(t[999].a[7], 5);
        // At least one element, even when asked for none.
        assert_eq!(HugeTable::<Line>::new(0).len(), 1);
    }
}
