//! `trace.csv`: a header `iteration,<names…>,result`, row 0 the start values, row k the values
//! after iteration k and θ+'s wins − losses in it. The trace is the run's state: `gougi tune`
//! started again with the same `--out` reads it back and goes on after its last complete row.

use super::spsa::Param;

/// The trace's file name inside `--out`.
pub const TRACE_FILE: &str = "trace.csv";

/// One complete trace row.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceRow {
    pub iteration: usize,
    pub theta: Vec<f64>,
    /// θ+'s wins − losses (none for row 0).
    pub result: Option<f64>,
}

/// The trace header for `params`.
pub fn trace_header(params: &[Param]) -> String {
    let mut s = String::from("iteration");
    for p in params {
        s.push(',');
        s.push_str(&p.name);
    }
    s.push_str(",result\n");
    s
}

pub(super) fn trace_line(row: &TraceRow) -> String {
    let mut s = row.iteration.to_string();
    for t in &row.theta {
        s.push_str(&format!(",{t}"));
    }
    s.push(',');
    if let Some(r) = row.result {
        s.push_str(&format!("{r}"));
    }
    s.push('\n');
    s
}

/// Why a trace cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("the trace's header {found:?} does not match the tune file ({expected:?}); use another --out")]
    Header { found: String, expected: String },
    #[error("trace line {0:?} is malformed")]
    Malformed(String),
    #[error("trace row {row} follows row {after}; the trace is not one run")]
    NotOneRun { row: usize, after: i64 },
}

/// Reads a trace: its complete rows and the byte length they end at (a torn last line, left
/// by a kill in the middle of a write, is not part of the run). Errors when the header is not
/// the one for `params` or a row is malformed.
pub fn read_trace(text: &str, params: &[Param]) -> Result<(Vec<TraceRow>, usize), TraceError> {
    let header = trace_header(params);
    if !text.starts_with(&header) {
        let found = text.lines().next().unwrap_or("");
        return Err(TraceError::Header {
            found: found.to_owned(),
            expected: header.trim_end().to_owned(),
        });
    }
    let mut rows = Vec::new();
    let mut end = header.len();
    let mut pos = header.len();
    while let Some(nl) = text[pos..].find('\n') {
        let line = &text[pos..pos + nl];
        let f: Vec<&str> = line.split(',').collect();
        let bad = || TraceError::Malformed(line.to_owned());
        if f.len() != params.len() + 2 {
            return Err(bad());
        }
        let iteration: usize = f[0].parse().map_err(|_| bad())?;
        if iteration != rows.len() {
            return Err(TraceError::NotOneRun {
                row: iteration,
                after: rows.len() as i64 - 1,
            });
        }
        let theta = f[1..=params.len()]
            .iter()
            .map(|x| x.parse::<f64>().map_err(|_| bad()))
            .collect::<Result<Vec<f64>, TraceError>>()?;
        let last = f[params.len() + 1];
        let result = if last.is_empty() {
            None
        } else {
            Some(last.parse::<f64>().map_err(|_| bad())?)
        };
        rows.push(TraceRow {
            iteration,
            theta,
            result,
        });
        pos += nl + 1;
        end = pos;
    }
    Ok((rows, end))
}
