//! The viewer's top modules import each other one way: no circle (a circle of imports makes
//! every module of it a part of every other, which is what the panels' shared types in
//! `shared.rs` broke). Doc comments, which may name any module, do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Per top module of `src` (a file or a folder), the top modules its code names as
/// `crate::NAME`.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.to_path_buf()];
    while let Some(p) = files.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).expect("the source folder") {
                files.push(e.expect("a source folder entry").path());
            }
            continue;
        }
        if p.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = p.strip_prefix(src).expect("a path under src");
        let top = rel
            .components()
            .next()
            .expect("a file under src")
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        let text = std::fs::read_to_string(&p).expect("a source file");
        let deps = g.entry(top.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + 7..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                    .collect();
                if !name.is_empty() && name != top {
                    deps.insert(name);
                }
            }
        }
    }
    let tops: BTreeSet<String> = g.keys().cloned().collect();
    for deps in g.values_mut() {
        deps.retain(|d| tops.contains(d));
    }
    g
}

/// A circle through `from`, if any (depth-first).
fn circle(g: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    fn go(
        g: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        target: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == target {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if go(g, next, target, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_owned()];
    let mut seen = BTreeSet::new();
    go(g, from, from, &mut path, &mut seen).then_some(path)
}

#[test]
fn the_viewers_modules_import_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(g.len() > 15, "{g:?}");
    assert!(g["app"].contains("timeline"), "the graph is read: {g:?}");
    for m in g.keys() {
        assert_eq!(circle(&g, m), None, "a circle of imports through {m}");
    }
}

#[test]
fn a_circle_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("d".into()).or_default().insert("a".into());
    assert_eq!(
        circle(&g, "a"),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
    assert_eq!(circle(&g, "d"), None);
}
