/*
 * Test fixture, never shipped: a stand-in for Windows' bcryptprimitives.dll under wine 8.
 *
 * Rust's standard library (1.78 and later) imports ProcessPrng from bcryptprimitives.dll for
 * its random seeds (HashMap keys). Windows 10 and later have it; Debian 12's wine 8 does not,
 * so its loader refuses gougi.exe before main. tests/windows.rs builds this file with
 * x86_64-w64-mingw32-gcc into a bcryptprimitives.dll placed beside the exe under test (the
 * loader looks in the exe's folder first). It implements ProcessPrng over advapi32's
 * SystemFunction036 (RtlGenRandom), which wine has.
 */
#include <windows.h>

/* RtlGenRandom: exported by advapi32 under this name, with no header declaration in mingw. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* BOOL ProcessPrng(PBYTE pbData, SIZE_T cbData): fills the buffer, always returns TRUE. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        /* RtlGenRandom takes a 32-bit length; feed it at most 1 GiB at a time. */
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
