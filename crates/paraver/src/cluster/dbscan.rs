//! DBSCAN (Ester, Kriegel, Sander and Xu, 1996), as BSC's Clustering Suite runs it on CPU
//! bursts: a point is *core* when at least `min_points` points (itself included) lie within
//! `eps` of it (Euclidean distance); core points within `eps` of each other share a cluster;
//! a point that is not core joins the cluster of a core point within `eps`, else it is noise.
//!
//! A border point within reach of two clusters belongs to the one that sequential DBSCAN
//! (points visited in index order, each new cluster grown whole before the next point is
//! visited) reaches first: the cluster whose first core point (lowest index) is lowest.
//! Clusters are numbered the same way, by their first core point. [`naive`] is that
//! sequential algorithm over all pairs (O(n²)), the reference of the tests; [`dbscan`] gives
//! the same labels with a grid index (the grid-based exact DBSCAN of Gunawan, 2013, and de
//! Berg, Gunawan and Roeloffzen, 2017): cells of side `eps / sqrt(d)`, so that the points of
//! one cell are all within `eps` of each other: a cell of `min_points` points or more holds
//! only core points, and two core cells are joined by the first pair within `eps` found.

use std::collections::HashMap;

/// A point's label: its cluster (0, 1, ... by first core point), or noise.
pub const NOISE: u32 = u32::MAX;

/// Squared Euclidean distance.
fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Sequential DBSCAN over all pairs: the reference. `points` are `dims` coordinates each.
pub fn naive(points: &[f64], dims: usize, eps: f64, min_points: usize) -> Vec<u32> {
    let n = points.len().checked_div(dims).unwrap_or(0);
    let p = |i: usize| &points[i * dims..(i + 1) * dims];
    let eps2 = eps * eps;
    let neighbours =
        |i: usize| -> Vec<usize> { (0..n).filter(|&j| dist2(p(i), p(j)) <= eps2).collect() };
    let mut label = vec![None::<u32>; n];
    let mut core = vec![None::<bool>; n];
    let mut next = 0u32;
    for i in 0..n {
        if label[i].is_some() {
            continue;
        }
        let near = neighbours(i);
        core[i] = Some(near.len() >= min_points);
        if near.len() < min_points {
            continue;
        }
        let cluster = next;
        next += 1;
        label[i] = Some(cluster);
        let mut queue: std::collections::VecDeque<usize> = near.into_iter().collect();
        while let Some(j) = queue.pop_front() {
            if label[j].is_some() {
                continue;
            }
            label[j] = Some(cluster);
            let near = neighbours(j);
            if near.len() >= min_points {
                queue.extend(near.into_iter().filter(|&k| label[k].is_none()));
            }
        }
    }
    label.into_iter().map(|l| l.unwrap_or(NOISE)).collect()
}

/// Union-find over cells, each root keeping the lowest point index of its component.
struct Components {
    parent: Vec<usize>,
    first: Vec<usize>,
}

impl Components {
    fn find(&mut self, mut a: usize) -> usize {
        while self.parent[a] != a {
            self.parent[a] = self.parent[self.parent[a]];
            a = self.parent[a];
        }
        a
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (keep, gone) = if a < b { (a, b) } else { (b, a) };
            self.parent[gone] = keep;
            self.first[keep] = self.first[keep].min(self.first[gone]);
        }
    }
}

/// The grid: cells of side `eps / sqrt(dims)`, each with its points (in index order).
struct Grid<'a> {
    points: &'a [f64],
    dims: usize,
    cells: Vec<Vec<usize>>,
    /// Per cell, the cells (index) whose points may lie within `eps` of its points.
    near: Vec<Vec<usize>>,
}

impl<'a> Grid<'a> {
    fn new(points: &'a [f64], dims: usize, eps: f64) -> Self {
        let n = points.len() / dims;
        // A hair under eps / sqrt(dims): rounding never puts two points farther apart than
        // eps in one cell.
        let side = eps / (dims as f64).sqrt() * (1.0 - 1e-9);
        let mut index: HashMap<Vec<i64>, usize> = HashMap::new();
        let mut cells: Vec<Vec<usize>> = Vec::new();
        let mut coords: Vec<Vec<i64>> = Vec::new();
        for i in 0..n {
            let key: Vec<i64> = points[i * dims..(i + 1) * dims]
                .iter()
                .map(|&x| (x / side).floor() as i64)
                .collect();
            let c = *index.entry(key.clone()).or_insert_with(|| {
                cells.push(Vec::new());
                coords.push(key);
                cells.len() - 1
            });
            cells[c].push(i);
        }
        // Cells within reach: offsets of up to ceil(eps / side) cells in every dimension
        // whose nearest corners are within eps.
        let reach = (eps / side).ceil() as i64;
        let mut offsets: Vec<Vec<i64>> = vec![Vec::new()];
        for _ in 0..dims {
            offsets = offsets
                .into_iter()
                .flat_map(|o| {
                    (-reach..=reach).map(move |d| {
                        let mut o = o.clone();
                        o.push(d);
                        o
                    })
                })
                .collect();
        }
        offsets.retain(|o| {
            let gap2: f64 = o
                .iter()
                .map(|&d| {
                    let g = (d.abs() - 1).max(0) as f64 * side;
                    g * g
                })
                .sum();
            gap2 <= eps * eps
        });
        let near = coords
            .iter()
            .map(|c| {
                offsets
                    .iter()
                    .filter_map(|o| {
                        let key: Vec<i64> = c.iter().zip(o).map(|(a, b)| a + b).collect();
                        index.get(&key).copied()
                    })
                    .collect()
            })
            .collect();
        Grid {
            points,
            dims,
            cells,
            near,
        }
    }

    fn point(&self, i: usize) -> &[f64] {
        &self.points[i * self.dims..(i + 1) * self.dims]
    }
}

/// DBSCAN with a grid index: the labels of [`naive`] (see the module documentation).
pub fn dbscan(points: &[f64], dims: usize, eps: f64, min_points: usize) -> Vec<u32> {
    if dims == 0 || points.is_empty() {
        return Vec::new();
    }
    let n = points.len() / dims;
    if eps.is_nan() || eps <= 0.0 || points.iter().any(|x| !x.is_finite()) {
        // No neighbourhood but the point itself (eps <= 0 joins only equal points: left to
        // the reference).
        return naive(points, dims, eps, min_points);
    }
    let grid = Grid::new(points, dims, eps);
    let eps2 = eps * eps;
    let cells = grid.cells.len();
    // Core points.
    let mut core = vec![false; n];
    for c in 0..cells {
        let members = &grid.cells[c];
        if members.len() >= min_points {
            for &i in members {
                core[i] = true;
            }
            continue;
        }
        for &i in members {
            let p = grid.point(i);
            let mut count = 0;
            'count: for &d in &grid.near[c] {
                for &j in &grid.cells[d] {
                    if dist2(p, grid.point(j)) <= eps2 {
                        count += 1;
                        if count >= min_points {
                            break 'count;
                        }
                    }
                }
            }
            core[i] = count >= min_points;
        }
    }
    // Core points of each cell, and the components of core cells.
    let core_of: Vec<Vec<usize>> = grid
        .cells
        .iter()
        .map(|m| m.iter().copied().filter(|&i| core[i]).collect())
        .collect();
    let mut comp = Components {
        parent: (0..cells).collect(),
        first: core_of
            .iter()
            .map(|m| m.first().copied().unwrap_or(usize::MAX))
            .collect(),
    };
    for c in 0..cells {
        if core_of[c].is_empty() {
            continue;
        }
        for &d in &grid.near[c] {
            if d <= c || core_of[d].is_empty() || comp.find(c) == comp.find(d) {
                continue;
            }
            let (small, large) = if core_of[c].len() <= core_of[d].len() {
                (&core_of[c], &core_of[d])
            } else {
                (&core_of[d], &core_of[c])
            };
            let joined = small.iter().any(|&i| {
                let p = grid.point(i);
                large.iter().any(|&j| dist2(p, grid.point(j)) <= eps2)
            });
            if joined {
                comp.union(c, d);
            }
        }
    }
    // Clusters numbered by their first core point.
    let mut roots: Vec<(usize, usize)> = (0..cells)
        .filter(|&c| !core_of[c].is_empty())
        .map(|c| comp.find(c))
        .collect::<std::collections::BTreeSet<usize>>()
        .into_iter()
        .map(|r| (comp.first[r], r))
        .collect();
    roots.sort_unstable();
    let number: HashMap<usize, u32> = roots
        .iter()
        .enumerate()
        .map(|(k, &(_, r))| (r, k as u32))
        .collect();
    let cell_cluster: Vec<Option<(usize, u32)>> = (0..cells)
        .map(|c| {
            if core_of[c].is_empty() {
                return None;
            }
            let r = comp.find(c);
            Some((comp.first[r], number[&r]))
        })
        .collect();
    let mut label = vec![NOISE; n];
    for c in 0..cells {
        for &i in &grid.cells[c] {
            if core[i] {
                label[i] = cell_cluster[c].map_or(NOISE, |(_, k)| k);
                continue;
            }
            // A border point: the reachable cluster with the lowest first core point.
            let p = grid.point(i);
            let mut best: Option<(usize, u32)> = None;
            for &d in &grid.near[c] {
                let Some(cluster) = cell_cluster[d] else {
                    continue;
                };
                if best.is_some_and(|b| b.0 <= cluster.0) {
                    continue;
                }
                if core_of[d].iter().any(|&j| dist2(p, grid.point(j)) <= eps2) {
                    best = Some(cluster);
                }
            }
            label[i] = best.map_or(NOISE, |(_, k)| k);
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn two_blobs_and_noise() {
        let mut pts = Vec::new();
        for i in 0..10 {
            pts.extend([0.1 + 0.001 * f64::from(i), 0.1]);
        }
        for i in 0..10 {
            pts.extend([0.8, 0.8 + 0.001 * f64::from(i)]);
        }
        pts.extend([0.5, 0.5]);
        let l = dbscan(&pts, 2, 0.05, 4);
        assert_eq!(l, naive(&pts, 2, 0.05, 4));
        assert!(l[..10].iter().all(|&x| x == 0));
        assert!(l[10..20].iter().all(|&x| x == 1));
        assert_eq!(l[20], NOISE);
    }

    /// A border point between two clusters goes to the one reached first.
    #[test]
    fn a_border_point_goes_to_the_first_cluster() {
        // Two tight groups of 3 at distance 2 apart on a line, a point in the middle within
        // eps (1.0) of one point of each group.
        let pts = vec![
            0.0, 0.0, -0.1, 0.0, -0.2, 0.0, 2.0, 0.0, 2.1, 0.0, 2.2, 0.0, 1.0, 0.0,
        ];
        let l = dbscan(&pts, 2, 1.0, 3);
        assert_eq!(l, naive(&pts, 2, 1.0, 3));
        assert_eq!(l[6], 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The grid gives the reference's labels, clustered and sparse sets, 1 to 3 dims.
        #[test]
        fn the_grid_gives_the_naive_labels(
            dims in 1usize..4,
            raw in proptest::collection::vec(0u32..40, 0..240),
            eps in 0.01f64..0.3,
            min_points in 1usize..7,
        ) {
            // Coarse coordinates: many equal and boundary distances.
            let n = raw.len() / dims;
            let pts: Vec<f64> = raw[..n * dims].iter().map(|&v| f64::from(v) / 40.0).collect();
            prop_assert_eq!(dbscan(&pts, dims, eps, min_points), naive(&pts, dims, eps, min_points));
        }
    }
}
