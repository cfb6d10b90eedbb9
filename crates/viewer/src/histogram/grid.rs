//! What a histogram window's table shows of its plane, as Paraver's window offers it: the
//! rows sorted by a column, the empty rows and columns hidden (as `paramedir -e`, on by
//! default), the table transposed (objects as columns, the control values as rows), and in
//! colour mode one pixel block per cell on the plane's gradient, the numbers on hover.
//!
//! A *display* row or column is what the window draws; a *data* row or column is the
//! plane's (`cells[row][column]`). Every figure shown is the plane's own cell or total.

use egui::{Color32, ColorImage};
use prvscope_paraver::histogram::TOTALS;
use prvscope_paraver::table::PlaneTable;

use super::gradient;

/// The display rows and columns of a plane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// The data rows shown, in display order (sorted, empty ones hidden).
    pub rows: Vec<usize>,
    /// The data columns shown, in display order (sorted when transposed).
    pub cols: Vec<usize>,
    /// Objects as columns, control values as rows.
    pub transposed: bool,
    /// The six totals follow the rows (the columns when transposed).
    pub totals: bool,
}

/// What a display cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// The plane's cell (data row, data column).
    Cell(usize, usize),
    /// Total `k` ([`TOTALS`]) of a data column.
    Total(usize, usize),
}

/// What heads a display row or column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// A data row (an object).
    Row(usize),
    /// A data column (a control value).
    Column(usize),
    /// Total `k`.
    Total(usize),
}

/// How the window shows its plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub hide_empty: bool,
    pub transposed: bool,
    /// The totals shown (not in colour mode: they are of other magnitudes than the cells).
    pub totals: bool,
    /// The rows sorted by a data column: (column, largest first).
    pub sort: Option<(usize, bool)>,
    /// Transposed: the columns sorted by a data row: (row, largest first).
    pub sort_t: Option<(usize, bool)>,
}

fn sorted(items: &mut [usize], key: impl Fn(usize) -> Option<f64>, desc: bool) {
    items.sort_by(|&a, &b| {
        let (x, y) = (
            key(a).unwrap_or(f64::NEG_INFINITY),
            key(b).unwrap_or(f64::NEG_INFINITY),
        );
        let o = x.total_cmp(&y);
        if desc { o.reverse() } else { o }
    });
}

impl Grid {
    /// The grid of `plane` (`rows` data rows) as `shape` asks.
    pub fn new(plane: &PlaneTable, shape: Shape) -> Grid {
        let n_rows = plane.cells.len();
        let n_cols = plane.columns.len();
        let cell = |r: usize, c: usize| plane.cells[r].get(c).copied().flatten();
        let mut rows: Vec<usize> = (0..n_rows)
            .filter(|&r| !shape.hide_empty || (0..n_cols).any(|c| cell(r, c).is_some()))
            .collect();
        let mut cols: Vec<usize> = (0..n_cols)
            .filter(|&c| !shape.hide_empty || (0..n_rows).any(|r| cell(r, c).is_some()))
            .collect();
        if let Some((c, desc)) = shape.sort.filter(|s| s.0 < n_cols) {
            sorted(&mut rows, |r| cell(r, c), desc);
        }
        if shape.transposed
            && let Some((r, desc)) = shape.sort_t.filter(|s| s.0 < n_rows)
        {
            sorted(&mut cols, |c| cell(r, c), desc);
        }
        Grid {
            rows,
            cols,
            transposed: shape.transposed,
            totals: shape.totals,
        }
    }

    fn n_totals(&self) -> usize {
        if self.totals { TOTALS.len() } else { 0 }
    }

    /// Display rows and columns.
    pub fn size(&self) -> (usize, usize) {
        let objects = self.rows.len() + self.n_totals();
        if self.transposed {
            (self.cols.len(), objects)
        } else {
            (objects, self.cols.len())
        }
    }

    /// The display cell (`i`, `j`).
    pub fn at(&self, i: usize, j: usize) -> Option<At> {
        let (object, value) = if self.transposed { (j, i) } else { (i, j) };
        let c = *self.cols.get(value)?;
        match self.rows.get(object) {
            Some(&r) => Some(At::Cell(r, c)),
            None if object - self.rows.len() < self.n_totals() => {
                Some(At::Total(c, object - self.rows.len()))
            }
            None => None,
        }
    }

    fn object_head(&self, k: usize) -> Option<Head> {
        match self.rows.get(k) {
            Some(&r) => Some(Head::Row(r)),
            None if k - self.rows.len() < self.n_totals() => Some(Head::Total(k - self.rows.len())),
            None => None,
        }
    }

    /// What heads display row `i`.
    pub fn row_head(&self, i: usize) -> Option<Head> {
        if self.transposed {
            self.cols.get(i).map(|&c| Head::Column(c))
        } else {
            self.object_head(i)
        }
    }

    /// What heads display column `j`.
    pub fn col_head(&self, j: usize) -> Option<Head> {
        if self.transposed {
            self.object_head(j)
        } else {
            self.cols.get(j).map(|&c| Head::Column(c))
        }
    }

    /// The display column of data column `c` (transposed: `c` is taken as a display
    /// column); 0 when it is hidden.
    pub fn display_column(&self, c: usize) -> usize {
        if self.transposed {
            c
        } else {
            self.cols.iter().position(|&x| x == c).unwrap_or(0)
        }
    }

    /// The display position of data cell (`r`, `c`), if shown.
    pub fn position(&self, r: usize, c: usize) -> Option<(usize, usize)> {
        let object = self.rows.iter().position(|&x| x == r)?;
        let value = self.cols.iter().position(|&x| x == c)?;
        Some(if self.transposed {
            (value, object)
        } else {
            (object, value)
        })
    }

    /// The cells of display rows `rows` as an image, a pixel per cell: the plane's
    /// gradient from `lo` to `hi`, `empty` where no burst fell (totals are left out).
    pub fn image(
        &self,
        plane: &PlaneTable,
        rows: std::ops::Range<usize>,
        (lo, hi): (f64, f64),
        empty: Color32,
    ) -> ColorImage {
        let (_, n_cols) = self.size();
        let mut pixels = Vec::with_capacity(rows.len() * n_cols);
        for i in rows.clone() {
            for j in 0..n_cols {
                let v = match self.at(i, j) {
                    Some(At::Cell(r, c)) => plane.cells[r].get(c).copied().flatten(),
                    _ => None,
                };
                pixels.push(v.map_or(empty, |v| gradient(v, lo, hi)));
            }
        }
        ColorImage::new([n_cols, rows.len()], pixels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane() -> PlaneTable {
        // 3 objects x 4 values; object 1 and value 2 empty.
        PlaneTable {
            label: None,
            columns: ["a", "b", "c", "d"].map(String::from).to_vec(),
            column_values: vec![None; 4],
            cells: vec![
                vec![Some(1.0), None, None, Some(4.0)],
                vec![None; 4],
                vec![Some(3.0), Some(2.0), None, None],
            ],
            totals: vec![[0.0; 6]; 4],
        }
    }

    fn shape() -> Shape {
        Shape {
            hide_empty: true,
            transposed: false,
            totals: true,
            sort: None,
            sort_t: None,
        }
    }

    #[test]
    fn empty_rows_and_columns_are_hidden_and_every_cell_is_the_planes() {
        let p = plane();
        let g = Grid::new(&p, shape());
        assert_eq!(
            (g.rows.clone(), g.cols.clone()),
            (vec![0, 2], vec![0, 1, 3])
        );
        assert_eq!(g.size(), (2 + 6, 3));
        assert_eq!(g.at(1, 2), Some(At::Cell(2, 3)));
        assert_eq!(g.at(2, 1), Some(At::Total(1, 0)));
        assert_eq!(g.at(8, 0), None);
        let all = Grid::new(
            &p,
            Shape {
                hide_empty: false,
                ..shape()
            },
        );
        assert_eq!(all.size(), (3 + 6, 4));
    }

    #[test]
    fn transposed_the_objects_are_columns_and_sorting_moves_the_values() {
        let p = plane();
        let tr = Grid::new(
            &p,
            Shape {
                transposed: true,
                sort_t: Some((0, true)),
                ..shape()
            },
        );
        // Values sorted by object 0, largest first: d (4), a (1), b (none).
        assert_eq!(tr.cols, vec![3, 0, 1]);
        assert_eq!(tr.size(), (3, 2 + 6));
        assert_eq!(tr.at(0, 0), Some(At::Cell(0, 3)));
        assert_eq!(tr.at(1, 1), Some(At::Cell(2, 0)));
        assert_eq!(tr.at(0, 2), Some(At::Total(3, 0)));
        assert_eq!(tr.row_head(0), Some(Head::Column(3)));
        assert_eq!(tr.col_head(1), Some(Head::Row(2)));
        assert_eq!(tr.col_head(7), Some(Head::Total(5)));
        assert_eq!(tr.position(2, 0), Some((1, 1)));
        // Every shown cell, both ways, is the plane's.
        let g = Grid::new(&p, shape());
        for (r, row) in p.cells.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                for grid in [&g, &tr] {
                    match grid.position(r, c) {
                        Some((i, j)) => assert_eq!(grid.at(i, j), Some(At::Cell(r, c))),
                        None => assert!(v.is_none() || !grid.rows.contains(&r)),
                    }
                }
            }
        }
    }

    #[test]
    fn the_colour_image_is_a_pixel_per_cell_on_the_gradient() {
        let p = plane();
        let g = Grid::new(
            &p,
            Shape {
                totals: false,
                ..shape()
            },
        );
        let empty = Color32::BLACK;
        let img = g.image(&p, 0..2, (1.0, 4.0), empty);
        assert_eq!(img.size, [3, 2]);
        assert_eq!(img.pixels[0], gradient(1.0, 1.0, 4.0));
        assert_eq!(img.pixels[1], empty);
        assert_eq!(img.pixels[2], gradient(4.0, 1.0, 4.0));
        assert_eq!(img.pixels[3], gradient(3.0, 1.0, 4.0));
    }
}
