//! Source locations: reading them from `.pcf` labels, finding the source files, and finding
//! where a scope ends in its source text.
//!
//! Extrae writes a location beside each function in one of these label styles:
//! - `LINE (FILE)` or `LINE (FILE, MODULE)`, often followed by the untruncated form in
//!   brackets: `70 (jacobi-2..per_v0.c) [70 (jacobi-2d-imper_v0.c, jacobi-2d-imper_v0)]`;
//! - Extrae 5: `FILE:LINE [PATH:LINE, MODULE]`;
//! - function labels that carry their own place: `main [demo.c:10]`.
//!
//! Unresolved places (`0 (Unresolved)`, `0 (., libc-2.28.so)`) are no location at all.
//! Files are searched beside the trace, in its parent, and in folders the user adds; a file
//! that is not found is reported with every place that was tried.

use std::path::{Path, PathBuf};

/// A place in the source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLoc {
    /// The file as the trace names it (a bare name, or a path).
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

impl SourceLoc {
    /// The file's name without its folders (what the search looks for).
    pub fn file_name(&self) -> &str {
        file_name(&self.file)
    }
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file_name(), self.line)
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The location a `.pcf` label gives, in any of the styles of the module docs.
pub fn parse_location(label: &str) -> Option<SourceLoc> {
    let label = label.trim();
    // The bracketed part is the untruncated form: try it first.
    if let Some((_, inner)) = split_bracket(label)
        && let Some(loc) = parse_plain_location(inner)
    {
        return Some(loc);
    }
    let head = split_bracket(label).map_or(label, |(head, _)| head);
    parse_plain_location(head)
}

/// The name a function label shows: `kernel_j..omp_fn.0 [kernel_jacobi_2d_imper.omp_fn.0]`
/// gives the untruncated bracketed name, `main [demo.c:10]` gives `main`.
pub fn function_name(label: &str) -> &str {
    let label = label.trim();
    match split_bracket(label) {
        Some((_, inner)) if parse_plain_location(inner).is_none() && !inner.is_empty() => {
            inner.trim()
        }
        Some((head, _)) => head.trim(),
        None => label,
    }
}

/// `head [inner]` with the brackets at the end.
fn split_bracket(label: &str) -> Option<(&str, &str)> {
    let inner = label.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    Some((inner.get(..open)?.trim_end(), inner.get(open + 1..)?))
}

/// `LINE (FILE[, MODULE])` or `FILE:LINE[, MODULE]`.
fn parse_plain_location(text: &str) -> Option<SourceLoc> {
    let text = text.trim();
    let loc = if let Some((line, rest)) = text.split_once(' ')
        && let Ok(line) = line.parse::<u32>()
        && let Some(inner) = rest.trim().strip_prefix('(')
        && let Some(inner) = inner.strip_suffix(')')
    {
        let file = inner.split(',').next().unwrap_or("").trim();
        SourceLoc {
            file: file.to_owned(),
            line,
        }
    } else {
        let first = text.split(',').next().unwrap_or("").trim();
        let (file, line) = first.rsplit_once(':')?;
        SourceLoc {
            file: file.trim().to_owned(),
            line: line.trim().parse().ok()?,
        }
    };
    let name = loc.file_name();
    let usable = loc.line > 0
        && !name.is_empty()
        && name != "."
        && !name.contains("..")
        && !name.contains(' ')
        && !name.starts_with('_');
    usable.then_some(loc)
}

/// Where a source file was found, or everywhere it was looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Read from this path.
    File { path: PathBuf, text: String },
    /// Shipped inside the program (the demo's source).
    Embedded { text: &'static str },
    /// Not found; the paths that were tried.
    Missing { tried: Vec<PathBuf> },
}

impl Found {
    /// The text, when found.
    pub fn text(&self) -> Option<&str> {
        match self {
            Found::File { text, .. } => Some(text),
            Found::Embedded { text } => Some(text),
            Found::Missing { .. } => None,
        }
    }
}

/// Finds source files: beside the trace, in its parent folder, in user folders.
#[derive(Debug, Clone, Default)]
pub struct SourceFinder {
    /// Folders searched in order.
    pub dirs: Vec<PathBuf>,
    /// Sources shipped with the program, by file name.
    pub embedded: Vec<(&'static str, &'static str)>,
}

impl SourceFinder {
    /// The folders for a trace at `trace`, then `extra` (the user's).
    pub fn for_trace(trace: &Path, extra: &[PathBuf]) -> Self {
        let mut dirs = Vec::new();
        if let Some(dir) = trace.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            dirs.push(dir.to_path_buf());
            if let Some(parent) = dir
                .canonicalize()
                .ok()
                .and_then(|d| d.parent().map(Path::to_path_buf))
            {
                dirs.push(parent);
            }
        }
        dirs.extend(extra.iter().cloned());
        SourceFinder {
            dirs,
            embedded: Vec::new(),
        }
    }

    /// Looks for `file` (a name or a path from the trace).
    pub fn find(&self, file: &str) -> Found {
        let name = file_name(file);
        if let Some((_, text)) = self.embedded.iter().find(|(n, _)| *n == name) {
            return Found::Embedded { text };
        }
        let mut tried = Vec::new();
        let given = Path::new(file);
        if given.is_absolute() {
            tried.push(given.to_path_buf());
        }
        tried.extend(self.dirs.iter().map(|d| d.join(name)));
        for path in &tried {
            if let Ok(bytes) = std::fs::read(path) {
                return Found::File {
                    path: path.clone(),
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                };
            }
        }
        Found::Missing { tried }
    }
}

/// The last line of the scope that starts at `first` (1-based): the line of the brace that
/// closes the first block opened at or after it (strings, characters and comments skipped),
/// or for languages without braces the first following line that starts with `end`. `None`
/// when neither is found within reach.
pub fn scope_end_line(text: &str, first: u32) -> Option<u32> {
    let lines: Vec<&str> = text.lines().collect();
    let start = (first as usize).checked_sub(1)?;
    lines.get(start)?;
    // Braces: the first `{` within a few lines, then its match.
    let mut depth = 0usize;
    let mut opened = false;
    let mut in_block_comment = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        if !opened && i > start + 8 {
            break;
        }
        let bytes = line.as_bytes();
        let mut k = 0;
        while k < bytes.len() {
            let c = bytes.get(k).copied().unwrap_or(b' ');
            let next = bytes.get(k + 1).copied();
            if in_block_comment {
                if c == b'*' && next == Some(b'/') {
                    in_block_comment = false;
                    k += 1;
                }
            } else if c == b'/' && next == Some(b'/') {
                break;
            } else if c == b'/' && next == Some(b'*') {
                in_block_comment = true;
                k += 1;
            } else if c == b'"' || c == b'\'' {
                // Skip the literal, honouring backslash escapes.
                k += 1;
                while k < bytes.len() && bytes.get(k) != Some(&c) {
                    if bytes.get(k) == Some(&b'\\') {
                        k += 1;
                    }
                    k += 1;
                }
            } else if c == b'{' {
                depth += 1;
                opened = true;
            } else if c == b'}' && opened {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return u32::try_from(i + 1).ok();
                }
            }
            k += 1;
        }
    }
    // Fortran and the like: the next line that starts with `end`.
    lines
        .iter()
        .enumerate()
        .skip(start + 1)
        .take(2000)
        .find(|(_, l)| {
            let l = l.trim_start().to_ascii_lowercase();
            l == "end" || l.starts_with("end ") || l.starts_with("end\t")
        })
        .and_then(|(i, _)| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_style_gives_its_location() {
        let loc = |f: &str, l: u32| {
            Some(SourceLoc {
                file: f.to_owned(),
                line: l,
            })
        };
        assert_eq!(
            parse_location(
                "70 (jacobi-2..per_v0.c) [70 (jacobi-2d-imper_v0.c, jacobi-2d-imper_v0)]"
            ),
            loc("jacobi-2d-imper_v0.c", 70)
        );
        assert_eq!(
            parse_location("101 (lulesh-comm.cc, lulesh2.0)"),
            loc("lulesh-comm.cc", 101)
        );
        assert_eq!(parse_location("12 (solver.f90)"), loc("solver.f90", 12));
        assert_eq!(
            parse_location("jacobi.c:70 [/home/u/src/jacobi.c:70, jacobi]"),
            loc("/home/u/src/jacobi.c", 70)
        );
        assert_eq!(parse_location("jacobi.c:70"), loc("jacobi.c", 70));
        assert_eq!(parse_location("main [demo.c:10]"), loc("demo.c", 10));
        for none in [
            "0 (Unresolved)",
            "0 (_NOT_Found)",
            "0 (., libc-2.28.so)",
            "End",
            "MPI_Allreduce",
            "kernel_j..omp_fn.0 [kernel_jacobi_2d_imper.omp_fn.0]",
        ] {
            assert_eq!(parse_location(none), None, "{none}");
        }
        assert_eq!(
            function_name("kernel_j..omp_fn.0 [kernel_jacobi_2d_imper.omp_fn.0]"),
            "kernel_jacobi_2d_imper.omp_fn.0"
        );
        assert_eq!(function_name("main [demo.c:10]"), "main");
        assert_eq!(function_name("MPI_Allreduce"), "MPI_Allreduce");
    }

    #[test]
    fn scopes_end_at_their_closing_brace_or_end_keyword() {
        let c = "int f(int x)\n{\n  const char *s = \"}\"; /* } */\n  if (x) {\n    x++; // }\n  }\n  return x;\n}\nint g;\n";
        assert_eq!(scope_end_line(c, 1), Some(8));
        assert_eq!(scope_end_line(c, 4), Some(6));
        let pragma = "#pragma omp parallel for\nfor (i = 0; i < n; i++) {\n  a[i] = 0;\n}\n";
        assert_eq!(scope_end_line(pragma, 1), Some(4));
        let f90 = "subroutine solve(n)\n  integer n\n  n = n + 1\nend subroutine solve\n";
        assert_eq!(scope_end_line(f90, 1), Some(4));
        assert_eq!(scope_end_line("x = 1\n", 1), None);
        assert_eq!(scope_end_line("x = 1\n", 7), None);
    }

    #[test]
    fn missing_files_list_where_they_were_looked_for() {
        let dir = std::env::temp_dir().join(format!("prvscope-src-{}", std::process::id()));
        let sub = dir.join("run");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.join("kernel.c"), "int k;\n").unwrap();
        let finder = SourceFinder::for_trace(&sub.join("t.prv"), &[PathBuf::from("/nonexistent")]);
        match finder.find("/build/src/kernel.c") {
            Found::File { text, .. } => assert_eq!(text, "int k;\n"),
            other => panic!("{other:?}"),
        }
        match finder.find("missing.c") {
            Found::Missing { tried } => {
                assert_eq!(tried.len(), 3, "{tried:?}");
                assert!(tried[0].ends_with("run/missing.c"));
                assert_eq!(tried[2], PathBuf::from("/nonexistent/missing.c"));
            }
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
