//! The scope panel's layout model: what the panel shows, computed without drawing (the scope
//! table's order, the source view's lines, heat and scope lanes, the scope types as the user
//! edits them). The viewer draws it; the tests here check it without pixels.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::scopes::{self, ScopeAnalysis, ScopeType};
use crate::source::{Found, scope_end_line};

/// Columns the scope table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Name,
    Location,
    Inclusive,
    Exclusive,
    Entries,
}

/// The scope table's order: indices into `a.scopes`.
pub fn table_order(a: &ScopeAnalysis, (by, desc): (SortBy, bool)) -> Vec<usize> {
    let mut order: Vec<usize> = (0..a.scopes.len()).collect();
    order.sort_by(|&i, &j| {
        let (x, y) = (&a.scopes[i], &a.scopes[j]);
        let o = match by {
            SortBy::Name => x.name.cmp(&y.name),
            SortBy::Location => x.location.cmp(&y.location),
            SortBy::Inclusive => x.inclusive.cmp(&y.inclusive),
            SortBy::Exclusive => x.exclusive.cmp(&y.exclusive),
            SortBy::Entries => x.entries.cmp(&y.entries),
        };
        if desc { o.reverse() } else { o }
    });
    order
}

/// What the source view draws for one analysis and one file.
pub struct Prepared {
    pub analysis: Arc<ScopeAnalysis>,
    pub file: String,
    pub found: Arc<Found>,
    /// Byte ranges of the text's lines.
    pub lines: Vec<std::ops::Range<usize>>,
    pub heat: BTreeMap<u32, u64>,
    pub source: scopes::HeatSource,
    /// Heated lines, hottest first.
    pub hot: Vec<(u32, u64)>,
    /// (scope index, first line, last line, lane) of the file's scopes.
    pub placed: Vec<(usize, u32, u32, usize)>,
    pub lanes: usize,
    /// Source files of the analysis, most heated first.
    pub files: Vec<String>,
}

impl Prepared {
    pub fn new(a: &Arc<ScopeAnalysis>, file: &str, found: Arc<Found>) -> Self {
        let (heat, source) = a.heat(file);
        let mut hot: Vec<(u32, u64)> = heat.iter().map(|(&l, &t)| (l, t)).collect();
        hot.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let text = found.text().unwrap_or_default();
        let lines = line_ranges(text);
        // Scopes of this file with their line ranges, in lanes that do not overlap.
        let in_file: Vec<(usize, u32, u32)> = if found.text().is_some() {
            a.scopes
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let loc = s.location.as_ref()?;
                    (loc.file_name() == file).then(|| {
                        let last = scope_end_line(text, loc.line)
                            .unwrap_or(loc.line)
                            .max(loc.line);
                        (i, loc.line, last)
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let (placed, lane_count) = place_in_lanes(in_file);
        Prepared {
            analysis: Arc::clone(a),
            file: file.to_owned(),
            found,
            lines,
            heat,
            source,
            hot,
            placed,
            lanes: lane_count,
            files: a.files(),
        }
    }
}

/// Byte ranges of the lines of `text`, without their line ends (`\n` or `\r\n`).
fn line_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for l in text.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        let body = body.strip_suffix('\r').unwrap_or(body);
        lines.push(start..start + body.len());
        start += l.len();
    }
    lines
}

/// Places scopes given as (scope index, first line, last line) in lanes where they do not
/// overlap, outer scopes first: (scope index, first line, last line, lane), and the number of
/// lanes.
fn place_in_lanes(mut in_file: Vec<(usize, u32, u32)>) -> (Vec<(usize, u32, u32, usize)>, usize) {
    in_file.sort_by_key(|s| (s.1, std::cmp::Reverse(s.2)));
    let mut placed = Vec::new();
    let mut lane_ends: Vec<u32> = Vec::new();
    for (i, first, last) in in_file {
        let lane = lane_ends
            .iter()
            .position(|&e| e < first)
            .unwrap_or(lane_ends.len());
        if lane == lane_ends.len() {
            lane_ends.push(last);
        } else if let Some(e) = lane_ends.get_mut(lane) {
            *e = last;
        }
        placed.push((i, first, last, lane));
    }
    (placed, lane_ends.len())
}

/// Scope types as the user edits them (`T`, or `T:nesting` where the nesting is not the one
/// the type's number and label imply: [`ScopeType::text`]).
pub fn types_text(types: &[ScopeType], pcf: Option<&prvscope_format::Pcf>) -> String {
    types
        .iter()
        .map(|t| t.text(pcf))
        .collect::<Vec<_>>()
        .join(",")
}

/// The scope types the user typed: `T` or `T:stack|hold|replace`, separated by commas or
/// spaces ([`ScopeType::parse`]); what is not one is an error that names it.
pub fn parse_types(
    text: &str,
    pcf: Option<&prvscope_format::Pcf>,
) -> Result<Vec<ScopeType>, String> {
    text.split([',', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| ScopeType::parse(t, pcf))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_before_their_line_ends() {
        let text = "int a;\r\nb\n\nlast";
        let lines = line_ranges(text);
        let bodies: Vec<&str> = lines.iter().filter_map(|r| text.get(r.clone())).collect();
        assert_eq!(bodies, ["int a;", "b", "", "last"]);
        assert!(line_ranges("").is_empty());
    }

    #[test]
    fn nested_scopes_take_further_lanes_and_later_ones_reuse_them() {
        // main 1-20 holds f 2-5 and g 7-9; h 22-30 comes after main.
        let (placed, lanes) = place_in_lanes(vec![(3, 22, 30), (1, 2, 5), (0, 1, 20), (2, 7, 9)]);
        assert_eq!(lanes, 2);
        assert_eq!(
            placed,
            [(0, 1, 20, 0), (1, 2, 5, 1), (2, 7, 9, 1), (3, 22, 30, 0)]
        );
        // A scope starting on the line another ends on does not share its lane.
        let (placed, lanes) = place_in_lanes(vec![(0, 1, 5), (1, 5, 8)]);
        assert_eq!((placed, lanes), (vec![(0, 1, 5, 0), (1, 5, 8, 1)], 2));
    }

    #[test]
    fn scope_types_read_back_as_written() {
        use crate::scopes::Nesting;
        let types = parse_types("60000019, 50000002 ,,7 36:replace 60000019:hold", None).unwrap();
        let st = |ty, nesting| ScopeType { ty, nesting };
        assert_eq!(
            types,
            [
                st(60_000_019, Nesting::Stack),
                st(50_000_002, Nesting::Leaf),
                st(7, Nesting::Leaf),
                st(36, Nesting::Replace),
                st(60_000_019, Nesting::Leaf),
            ]
        );
        assert_eq!(
            types_text(&types, None),
            "60000019,50000002,7,36:replace,60000019:hold"
        );
        assert_eq!(parse_types(&types_text(&types, None), None).unwrap(), types);
        assert_eq!(parse_types(" ", None).unwrap(), []);
        let err = parse_types("60000019,none", None).unwrap_err();
        assert!(err.contains("`none` is not an event type"), "{err}");
        let err = parse_types("7:nest", None).unwrap_err();
        assert!(err.contains("`stack`, `hold` or `replace`"), "{err}");
    }

    /// main [0,100) > solve [10,60) > `MPI_Allreduce` [30,50); solve's location comes from its
    /// user-function line event (line 20 of app.c).
    fn analysed() -> Arc<ScopeAnalysis> {
        let t = crate::scopes::tests::trace_of(
            1,
            100,
            "1:1:1:1:1:0:100:1\n\
2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2:60000119:2\n2:1:1:1:1:30:50000002:10\n\
2:1:1:1:1:50:50000002:N\n2:1:1:1:1:60:60000019:N:60000119:N\n",
        );
        Arc::new(crate::scopes::tests::run(&t, 0, 100))
    }

    #[test]
    fn the_table_sorts_by_the_chosen_column_both_ways() {
        let a = analysed();
        let names = |by| -> Vec<&str> {
            table_order(&a, by)
                .into_iter()
                .map(|i| a.scopes[i].name.as_str())
                .collect()
        };
        assert_eq!(
            names((SortBy::Inclusive, true)),
            ["main", "solve", "MPI_Allreduce"]
        );
        assert_eq!(
            names((SortBy::Inclusive, false)),
            ["MPI_Allreduce", "solve", "main"]
        );
        assert_eq!(
            names((SortBy::Name, false)),
            ["MPI_Allreduce", "main", "solve"]
        );
        // Exclusive: main 50, solve 30, MPI_Allreduce 20.
        assert_eq!(
            names((SortBy::Exclusive, true)),
            ["main", "solve", "MPI_Allreduce"]
        );
    }

    #[test]
    fn the_source_view_places_the_files_scopes_and_heat() {
        let a = analysed();
        let text = "#include <mpi.h>\n\nint main(void)\n{\n  solve();\n  return 0;\n}\n";
        let p = Prepared::new(&a, "app.c", Arc::new(Found::Embedded { text }));
        assert_eq!(p.lines.len(), 7);
        assert_eq!(p.files, ["app.c"]);
        // main is declared on line 3 of app.c and ends at its closing brace, line 7; solve
        // takes its location from the line event (line 20, past this text's end: one line).
        let at = |name| a.scopes.iter().position(|s| s.name == name).unwrap();
        assert_eq!(p.placed, [(at("main"), 3, 7, 0), (at("solve"), 20, 20, 0)]);
        assert_eq!(p.lanes, 1);
        // No sampled lines: each scope's exclusive time heats its first line, hottest first
        // (main 100 - 50, solve 50 - 20).
        assert_eq!(p.source, scopes::HeatSource::ScopeFirstLines);
        assert_eq!(p.hot, [(3, 50), (20, 30)]);
        // A missing file: no lines, no scope lanes, the heat still listed.
        let missing = Prepared::new(&a, "app.c", Arc::new(Found::Missing { tried: Vec::new() }));
        assert!(missing.lines.is_empty() && missing.placed.is_empty());
        assert_eq!(missing.lanes, 0);
        assert_eq!(missing.hot, p.hot);
    }
}
