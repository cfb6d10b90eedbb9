//! DBSCAN's parameters chosen from the bursts, and the refinement that clusters what one
//! radius leaves as noise without merging what it separated.
//!
//! - **The radius** ([`knee`] of [`core_distances`]): Ester et al.'s (1996) sorted
//!   k-distance graph. Each point's *core distance* is the radius at which it becomes a core
//!   point: the distance to its `min_points`-th nearest point, itself counted. Sorted, these
//!   distances stay low over the points of dense groups and rise steeply over the outliers;
//!   the radius is taken at the knee, the point of the curve farthest below the chord from
//!   its first to its last value (both axes scaled to [0, 1]: the "kneedle" rule). It is
//!   never below the Clustering Suite's usual 0.03 ([`super::DEFAULT_EPS`]): on regular
//!   codes with many processes the knee lies in the spread of one phase's bursts, and a
//!   smaller radius would split a phase into several clusters.
//! - **The refinement** ([`refine`]): after DBSCAN at `eps`, the radius doubles at each step
//!   (`2 eps`, `4 eps`...). At each, a point still noise joins a cluster when points of that
//!   cluster, and of no other, lie within the radius of it; then DBSCAN runs at the radius
//!   over the points still noise alone, and its clusters are new ones (found at that radius).
//!   A point within reach of two clusters stays noise, and no two clusters of a finer radius
//!   are ever merged: sparse phases (a phase run once per process, a few long iterations) are
//!   clustered at the radius their spread needs, dense ones keep the fine separation. This is
//!   in the spirit of the Clustering Suite's aggregative refinement (several radii, the
//!   result kept per cluster), simpler: it does not judge clusters by their SPMD sequence.

use super::dbscan::{self, NOISE};

/// At most this many points' core distances are computed for the knee: every k-th point
/// beyond it (each one's distance is still to its nearest among all points).
pub const MAX_QUERIES: usize = 8192;

/// Squared Euclidean distance.
fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The core distance of points (`dims` coordinates each) for `min_points`, sorted
/// ascending: of every point, or of every k-th one above [`MAX_QUERIES`] points. A point
/// with fewer than `min_points` points in all has none.
pub fn core_distances(points: &[f64], dims: usize, min_points: usize) -> Vec<f64> {
    let n = points.len().checked_div(dims).unwrap_or(0);
    if n < min_points || min_points == 0 {
        return Vec::new();
    }
    let p = |i: usize| &points[i * dims..(i + 1) * dims];
    // Sorted by the first coordinate: the search walks out from the query both ways and
    // stops where the first coordinate alone is farther than the k-th nearest so far.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| p(a)[0].total_cmp(&p(b)[0]).then(a.cmp(&b)));
    let step = n.div_ceil(MAX_QUERIES).max(1);
    let k = min_points;
    let mut out: Vec<f64> = (0..n)
        .step_by(step)
        .map(|q| {
            let at = order
                .binary_search_by(|&o| p(o)[0].total_cmp(&p(q)[0]).then(o.cmp(&q)))
                .unwrap_or_else(|i| i);
            // The k smallest squared distances so far, ascending (the query itself first).
            let mut best: Vec<f64> = Vec::with_capacity(k + 1);
            offer(&mut best, k, 0.0);
            let x = p(q)[0];
            let (mut lo, mut hi) = (at, at + 1);
            loop {
                let bound = if best.len() == k {
                    best[k - 1]
                } else {
                    f64::INFINITY
                };
                let left = (lo > 0).then(|| (x - p(order[lo - 1])[0]).powi(2));
                let right = (hi < n).then(|| (p(order[hi])[0] - x).powi(2));
                let (gap, go_left) = match (left, right) {
                    (Some(l), Some(r)) => (l.min(r), l <= r),
                    (Some(l), None) => (l, true),
                    (None, Some(r)) => (r, false),
                    (None, None) => break,
                };
                // (A point no nearer than the k-th cannot enter: ties stop the walk too.)
                if gap >= bound {
                    break;
                }
                let o = if go_left {
                    lo -= 1;
                    order[lo]
                } else {
                    hi += 1;
                    order[hi - 1]
                };
                offer(&mut best, k, dist2(p(q), p(o)));
            }
            best.get(k - 1).map_or(f64::INFINITY, |d| d.sqrt())
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out
}

/// Keeps `d` among the `k` smallest of `best` (ascending).
fn offer(best: &mut Vec<f64>, k: usize, d: f64) {
    if best.len() < k || d < best[k - 1] {
        let i = best.partition_point(|&b| b <= d);
        best.insert(i, d);
        best.truncate(k);
    }
}

/// The knee of an ascending curve: the value at the point farthest below the chord from its
/// first to its last point, both axes scaled to [0, 1]; `None` for a curve of fewer than
/// three points or a flat one.
pub fn knee(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    let (first, last) = (*sorted.first()?, *sorted.last()?);
    if n < 3 || last.partial_cmp(&first) != Some(std::cmp::Ordering::Greater) || !last.is_finite() {
        return None;
    }
    let mut best = (0.0, None);
    for (i, &y) in sorted.iter().enumerate() {
        let below = i as f64 / (n - 1) as f64 - (y - first) / (last - first);
        if below > best.0 {
            best = (below, Some(y));
        }
    }
    best.1
}

/// DBSCAN refined ([`refine`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Refined {
    /// Per point, its cluster or [`NOISE`]: DBSCAN's at `eps` for the clusters found there,
    /// then new ones in the order found.
    pub labels: Vec<u32>,
    /// Per label, the radius at which its cluster was found.
    pub found_at: Vec<f64>,
    /// Per point, the radius at which it was given its label (`eps` for noise).
    pub joined_at: Vec<f64>,
}

/// Labels of DBSCAN at `eps` refined over `steps` doublings of the radius, as the module
/// says.
pub fn refine(points: &[f64], dims: usize, eps: f64, min_points: usize, steps: u32) -> Refined {
    let mut labels = dbscan::dbscan(points, dims, eps, min_points);
    let mut joined_at = vec![eps; labels.len()];
    let count = |l: &[u32]| {
        l.iter()
            .filter(|&&x| x != NOISE)
            .max()
            .map_or(0, |&m| m as usize + 1)
    };
    let mut found_at = vec![eps; count(&labels)];
    let mut radius = eps;
    for _ in 0..steps {
        if !labels.contains(&NOISE) {
            break;
        }
        radius *= 2.0;
        // The noise within reach of one cluster only joins it.
        let near = Near::new(points, dims, &labels, radius);
        let joins: Vec<(usize, u32)> = (0..labels.len())
            .filter(|&i| labels[i] == NOISE)
            .filter_map(|i| {
                near.only_cluster(&points[i * dims..(i + 1) * dims])
                    .map(|m| (i, m))
            })
            .collect();
        for (i, m) in joins {
            labels[i] = m;
            joined_at[i] = radius;
        }
        // The rest: DBSCAN over the noise alone, its clusters new ones.
        let noise: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == NOISE).collect();
        let coords: Vec<f64> = noise
            .iter()
            .flat_map(|&i| points[i * dims..(i + 1) * dims].iter().copied())
            .collect();
        let sub = dbscan::dbscan(&coords, dims, radius, min_points);
        let first = found_at.len() as u32;
        for (&i, &l) in noise.iter().zip(&sub) {
            if l != NOISE {
                labels[i] = first + l;
                joined_at[i] = radius;
            }
        }
        found_at.resize(found_at.len() + count(&sub), radius);
    }
    Refined {
        labels,
        found_at,
        joined_at,
    }
}

/// The clustered points in cells of side `radius`, each cell's points grouped by cluster:
/// which clusters have a point within `radius` of a point.
struct Near<'a> {
    points: &'a [f64],
    dims: usize,
    radius: f64,
    /// Per cell (by its integer coordinates): per cluster, its points there.
    cells: std::collections::HashMap<Vec<i64>, Vec<(u32, Vec<usize>)>>,
    /// The offsets of the cells around a cell: -1, 0, 1 in every dimension.
    offsets: Vec<Vec<i64>>,
}

impl<'a> Near<'a> {
    fn new(points: &'a [f64], dims: usize, labels: &[u32], radius: f64) -> Self {
        let mut cells: std::collections::HashMap<Vec<i64>, Vec<(u32, Vec<usize>)>> =
            std::collections::HashMap::new();
        for (i, &l) in labels.iter().enumerate() {
            if l == NOISE {
                continue;
            }
            let key = Self::key(&points[i * dims..(i + 1) * dims], radius);
            let groups = cells.entry(key).or_default();
            match groups.iter_mut().find(|g| g.0 == l) {
                Some(g) => g.1.push(i),
                None => groups.push((l, vec![i])),
            }
        }
        let mut offsets: Vec<Vec<i64>> = vec![Vec::new()];
        for _ in 0..dims {
            offsets = offsets
                .into_iter()
                .flat_map(|o| {
                    (-1..=1).map(move |d| {
                        let mut o = o.clone();
                        o.push(d);
                        o
                    })
                })
                .collect();
        }
        Near {
            points,
            dims,
            radius,
            cells,
            offsets,
        }
    }

    fn key(p: &[f64], side: f64) -> Vec<i64> {
        p.iter().map(|&x| (x / side).floor() as i64).collect()
    }

    /// The one cluster with a point within the radius of `p`; `None` when none has, or
    /// several have.
    fn only_cluster(&self, p: &[f64]) -> Option<u32> {
        let r = self.radius;
        let r2 = r * r;
        let key = Self::key(p, r);
        let mut found: Option<u32> = None;
        for o in &self.offsets {
            let cell: Vec<i64> = key.iter().zip(o).map(|(a, b)| a + b).collect();
            let Some(groups) = self.cells.get(&cell) else {
                continue;
            };
            // The nearest and farthest a point of the cell can be.
            let (mut lo, mut hi) = (0.0, 0.0);
            for (&x, &c) in p.iter().zip(&cell) {
                let (a, b) = (c as f64 * r, (c + 1) as f64 * r);
                let gap = if x < a {
                    a - x
                } else if x > b {
                    x - b
                } else {
                    0.0
                };
                let far = (x - a).abs().max((b - x).abs());
                lo += gap * gap;
                hi += far * far;
            }
            if lo > r2 {
                continue;
            }
            for (l, members) in groups {
                if found == Some(*l) {
                    continue;
                }
                let within = hi <= r2
                    || members
                        .iter()
                        .any(|&j| dist2(p, &self.points[j * self.dims..(j + 1) * self.dims]) <= r2);
                if within {
                    if found.is_some() {
                        return None;
                    }
                    found = Some(*l);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator of points.
    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    fn naive_core(points: &[f64], dims: usize, k: usize) -> Vec<f64> {
        let n = points.len() / dims;
        let p = |i: usize| &points[i * dims..(i + 1) * dims];
        let mut out: Vec<f64> = (0..n)
            .map(|i| {
                let mut d: Vec<f64> = (0..n).map(|j| dist2(p(i), p(j)).sqrt()).collect();
                d.sort_by(f64::total_cmp);
                d[k - 1]
            })
            .collect();
        out.sort_by(f64::total_cmp);
        out
    }

    #[test]
    fn core_distances_are_the_naive_ones() {
        let mut seed = 7;
        for dims in [1, 2, 3] {
            // Groups and outliers, ties in the first coordinate included.
            let mut pts = Vec::new();
            for i in 0..600 {
                for d in 0..dims {
                    let x = if i % 5 == 0 {
                        lcg(&mut seed)
                    } else {
                        f64::from(i % 3) * 0.3 + lcg(&mut seed) * 0.01
                    };
                    pts.push(if d == 0 && i % 7 == 0 { 0.5 } else { x });
                }
            }
            for k in [1, 2, 4, 10] {
                assert_eq!(
                    core_distances(&pts, dims, k),
                    naive_core(&pts, dims, k),
                    "{dims} dims, {k} points"
                );
            }
        }
        assert!(core_distances(&[0.0, 1.0], 1, 4).is_empty());
    }

    #[test]
    fn the_knee_is_where_the_curve_rises() {
        // 90 points at ~0.01, then ten rising steeply.
        let mut v: Vec<f64> = (0..90).map(|i| 0.01 + f64::from(i) * 1e-4).collect();
        v.extend((1..=10).map(|i| 0.02 * f64::from(i * i)));
        let k = knee(&v).unwrap();
        assert!((0.018..0.03).contains(&k), "knee {k}");
        assert_eq!(knee(&[1.0, 1.0, 1.0]), None);
        assert_eq!(knee(&[0.0, 1.0]), None);
    }

    #[test]
    fn refining_never_merges_and_only_adds() {
        let mut seed = 11;
        // Two tight groups 0.05 apart (merged at 0.1), a sparse group far off, outliers.
        let mut pts = Vec::new();
        for _ in 0..40 {
            pts.extend([0.2 + lcg(&mut seed) * 0.01, 0.2 + lcg(&mut seed) * 0.01]);
            pts.extend([0.25 + lcg(&mut seed) * 0.01, 0.2 + lcg(&mut seed) * 0.01]);
        }
        for i in 0..6 {
            pts.extend([0.8 + f64::from(i) * 0.015, 0.8]);
        }
        pts.extend([0.5, 0.0, 0.0, 1.0]);
        // Between the tight groups (within 0.04 of both), and near the first only.
        pts.extend([0.23, 0.23, 0.18, 0.18]);
        let plain = dbscan::dbscan(&pts, 2, 0.02, 4);
        let zero = refine(&pts, 2, 0.02, 4, 0);
        assert_eq!(zero.labels, plain);
        assert_eq!(zero.found_at, vec![0.02; 2]);
        let Refined {
            labels: refined,
            found_at: found,
            joined_at,
        } = refine(&pts, 2, 0.02, 4, 2);
        for (a, b) in plain.iter().zip(&refined) {
            if *a != NOISE {
                assert_eq!(a, b, "a cluster of the first radius keeps its points");
            }
        }
        // The sparse group (spacing 0.015) is found at 0.04; the tight groups stay two.
        let sparse = refined[80];
        assert_ne!(sparse, NOISE);
        assert!(refined[80..86].iter().all(|&l| l == sparse));
        assert!((found[sparse as usize] - 0.04).abs() < 1e-12);
        assert!(joined_at[80..86].iter().all(|&r| (r - 0.04).abs() < 1e-12));
        assert!(joined_at[..80].iter().all(|&r| r == 0.02));
        assert_ne!(refined[0], refined[1]);
        assert_eq!(&refined[86..89], &[NOISE, NOISE, NOISE]);
        assert_eq!(plain[89], NOISE);
        assert_eq!(refined[89], refined[0]);
        assert!((joined_at[89] - 0.04).abs() < 1e-12);
    }
}
