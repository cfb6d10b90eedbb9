//! A computed histogram as a table (what the viewer shows) and as paramedir's text.

use std::fmt::Write as _;

use crate::number::fixed;

/// A computed histogram, as paramedir prints it: row labels, and per plane the printed
/// columns in order with their cells and totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Where this output differs from paramedir's in what is not a figure (its row labels).
    pub notes: Vec<String>,
    pub statistic: String,
    pub row_labels: Vec<String>,
    /// The control window's object of each row (rows may be a selection of them).
    pub row_objects: Vec<usize>,
    /// `Analyzer2D.HorizVert: Vertical`: columns printed as lines.
    pub vertical: bool,
    pub planes: Vec<PlaneTable>,
}

/// One plane of a histogram (the only one in 2D).
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneTable {
    /// The plane's label (3D histograms with more than one plane).
    pub label: Option<String>,
    pub columns: Vec<String>,
    /// The control values [lo, hi) each column holds (`None` for partner-object columns).
    pub column_values: Vec<Option<(f64, f64)>>,
    /// `cells[row][column]`: `None` where no burst fell.
    pub cells: Vec<Vec<Option<f64>>>,
    /// Total, Average, Maximum, Minimum, `StDev`, `Avg/Max` of each column (of each row when
    /// vertical).
    pub totals: Vec<[f64; 6]>,
}

/// The names of the six totals rows.
pub const TOTALS: [&str; 6] = ["Total", "Average", "Maximum", "Minimum", "StDev", "Avg/Max"];

impl Histogram {
    /// paramedir's text: tab after every field, numbers with 2 decimals, an empty cell 0.00.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.planes {
            if let Some(l) = &p.label {
                out.push_str(l);
                out.push('\n');
            }
            out.push('\t');
            if self.vertical {
                for r in &self.row_labels {
                    let _ = write!(out, "{r}\t");
                }
                out.push('\n');
                for (i, c) in p.columns.iter().enumerate() {
                    let _ = write!(out, "{c}\t");
                    for row in &p.cells {
                        let _ = write!(out, "{}\t", fixed(row[i].unwrap_or(0.0), 2));
                    }
                    out.push('\n');
                }
            } else {
                for c in &p.columns {
                    let _ = write!(out, "{c}\t");
                }
                out.push('\n');
                for (r, row) in p.cells.iter().enumerate() {
                    let _ = write!(out, "{}\t", self.row_labels[r]);
                    for v in row {
                        let _ = write!(out, "{}\t", fixed(v.unwrap_or(0.0), 2));
                    }
                    out.push('\n');
                }
            }
            out.push('\n');
            for (k, name) in TOTALS.iter().enumerate() {
                let _ = write!(out, "{name}\t");
                for t in &p.totals {
                    let _ = write!(out, "{}\t", fixed(t[k], 2));
                }
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }
}
