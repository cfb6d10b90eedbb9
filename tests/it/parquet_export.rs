//! `prvscope export --parquet`: the tables hold every record of the store, row groups are
//! time slices, and DuckDB reading them gives the per-thread state times of `prvscope stats`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;
use parquet::record::RowAccessor;
use prvscope_analysis::parquet_export::{self, ParquetOptions};

use crate::common;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    out.sort();
    out
}

/// Every row of a table, each as the `u64`s of the named columns (NULL as `None`).
fn rows(dir: &Path, columns: &[&str]) -> Vec<Vec<Option<u64>>> {
    let mut out = Vec::new();
    for f in files(dir) {
        let reader = SerializedFileReader::new(std::fs::File::open(&f).unwrap()).unwrap();
        for row in reader.get_row_iter(None).unwrap() {
            let row = row.unwrap();
            let names: Vec<String> = row.get_column_iter().map(|(n, _)| n.clone()).collect();
            out.push(
                columns
                    .iter()
                    .map(|c| {
                        let i = names.iter().position(|n| n == c).unwrap();
                        row.get_ulong(i)
                            .ok()
                            .or_else(|| row.get_int(i).ok().map(|x| x as u64))
                    })
                    .collect(),
            );
        }
    }
    out
}

/// A generated trace cut into many small row groups and files: every state and event of
/// the store is there once, with its object and NULL for the null value; each row group is a
/// time slice after the one before; messages in send order.
#[test]
fn the_tables_hold_every_record_in_time_slices() {
    let _shared = common::shared();
    let path = common::generated_16_threads_of("parquet-generated", 3 << 20);
    let t = common::load(&path);
    let dir = common::temp_dir("parquet-generated-out");
    let options = ParquetOptions {
        rows_per_group: 5_000,
        groups_per_file: 3,
    };
    let out = parquet_export::export(&t, &dir, options).unwrap();
    let c = t.store.counts();
    let rows_of = |name: &str| out.tables.iter().find(|x| x.0 == name).unwrap().1;
    assert_eq!(rows_of("states"), c.states);
    assert_eq!(rows_of("events"), c.events);
    assert_eq!(rows_of("comms"), c.comms);
    assert_eq!(rows_of("objects"), 16);
    assert!(out.tables.iter().find(|x| x.0 == "events").unwrap().2 > 3);

    // States: the same multiset as the store's, objects numbered from 1.
    let null = t.store.null_policy().sentinel;
    let mut expect = Vec::new();
    for (row, th) in t.store.threads().iter().enumerate() {
        let (a, task) = (1, row / 4 + 1);
        for (b, e, v) in t.store.states_in(row, 0, u64::MAX) {
            let v = (v != null).then_some(v);
            expect.push(vec![
                Some(a),
                Some(task as u64),
                Some((row % 4 + 1) as u64),
                Some(b),
                Some(e),
                v,
            ]);
        }
        assert!(!th.states.is_empty());
    }
    let mut got = rows(
        &dir.join("states"),
        &["appl", "task", "thread", "begin", "end", "state"],
    );
    expect.sort();
    got.sort();
    assert_eq!(got, expect);

    // Events: per (type, value) counts agree, NULL where the store has the sentinel.
    let mut expect: BTreeMap<(u64, Option<u64>), u64> = BTreeMap::new();
    for th in t.store.threads() {
        for col in &th.events {
            for i in 0..col.len() {
                let v = col.value.get(i);
                *expect
                    .entry((u64::from(col.ty), (v != null).then_some(v)))
                    .or_default() += 1;
            }
        }
    }
    let mut got: BTreeMap<(u64, Option<u64>), u64> = BTreeMap::new();
    for r in rows(&dir.join("events"), &["type", "value"]) {
        *got.entry((r[0].unwrap(), r[1])).or_default() += 1;
    }
    assert_eq!(got, expect);

    // Row groups are time slices, in order: each group's times lie after the last group's.
    let mut last_max = 0u64;
    let mut groups = 0;
    for f in files(&dir.join("events")) {
        let reader = SerializedFileReader::new(std::fs::File::open(&f).unwrap()).unwrap();
        for g in reader.metadata().row_groups() {
            let time = g
                .columns()
                .iter()
                .find(|c| c.column_path().string() == "time")
                .unwrap();
            let Some(Statistics::Int64(s)) = time.statistics() else {
                panic!("no statistics for time");
            };
            let (lo, hi) = (*s.min_opt().unwrap() as u64, *s.max_opt().unwrap() as u64);
            assert!(
                lo >= last_max || groups == 0,
                "group {groups}: {lo} < {last_max}"
            );
            last_max = hi;
            groups += 1;
        }
    }
    assert!(groups > 10, "{groups} row groups");

    // Messages in logical send order.
    let sends: Vec<u64> = rows(&dir.join("comms"), &["logical_send"])
        .into_iter()
        .map(|r| r[0].unwrap())
        .collect();
    assert_eq!(sends.len() as u64, c.comms);
    assert!(sends.windows(2).all(|w| w[0] <= w[1]));

    // A second export into the same folder replaces the first one's files.
    let fewer = ParquetOptions {
        rows_per_group: 1 << 20,
        groups_per_file: 4,
    };
    parquet_export::export(&t, &dir, fewer).unwrap();
    assert_eq!(files(&dir.join("events")).len(), 1);
    assert_eq!(rows(&dir.join("states"), &["begin"]).len() as u64, c.states);
}

/// The Python with DuckDB that `.ci/setup` installs (or `python3` if it has DuckDB).
fn duckdb_python() -> Option<String> {
    let candidates = std::env::var("PRVSCOPE_DUCKDB_PYTHON")
        .into_iter()
        .chain(["python3".to_owned()]);
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import duckdb"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "DuckDB is needed under CI=true (.ci/setup installs it)"
    );
    eprintln!("skipping: no Python with DuckDB");
    None
}

/// DuckDB reading the export of prime, with the README's query
/// (`contrib/duckdb/state_times.sql`), gives the state times of `prvscope stats`, cell by cell.
#[test]
fn duckdb_gives_the_state_times_of_stats() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let Some(python) = duckdb_python() else {
        return;
    };
    let prime = root.join("extrae_mpi_prime16/prime_v0.prv");
    let dir = common::temp_dir("parquet-prime");
    let bin = env!("CARGO_BIN_EXE_prvscope");
    common::stdout_of(
        Command::new(bin)
            .args(["export", "--no-cache", "--parquet"])
            .arg(&dir)
            .arg(&prime),
    );
    let stats = common::stdout_of(
        Command::new(bin)
            .args(["stats", "--csv", "--no-cache"])
            .arg(&prime),
    );
    let mut lines = stats.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let mut expect = BTreeMap::new();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        for (state, cell) in header.iter().zip(&cells).skip(1) {
            let ticks: u64 = cell.parse().unwrap();
            if ticks > 0 {
                expect.insert((cells[0].to_owned(), (*state).to_owned()), ticks);
            }
        }
    }
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/duckdb/state_times.sql");
    let script = format!(
        "import duckdb, sys\nfor r in duckdb.sql(open({:?}).read()).fetchall():\n    print(f'{{r[0]}}\\t{{r[1]}}\\t{{r[2]}}')",
        sql.display().to_string()
    );
    let out = common::stdout_of(
        Command::new(&python)
            .args(["-c", &script])
            .current_dir(&dir),
    );
    let mut got = BTreeMap::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        got.insert(
            (f[0].to_owned(), f[1].to_owned()),
            f[2].parse::<u64>().unwrap(),
        );
    }
    assert_eq!(got.len(), expect.len());
    assert_eq!(got, expect);
}

/// DuckDB reads every record column of the generated trace's export (data pages v2, times
/// and event values delta-packed, NULL values among them) as the store holds them: per event
/// type, per table, counts and sums of every column.
#[test]
fn duckdb_reads_every_record_column_as_the_store_holds_it() {
    let _shared = common::shared();
    let Some(python) = duckdb_python() else {
        return;
    };
    let path = common::generated_16_threads_of("parquet-duckdb-generated", 3 << 20);
    let t = common::load(&path);
    let dir = common::temp_dir("parquet-duckdb-generated-out");
    let options = ParquetOptions {
        rows_per_group: 20_000,
        groups_per_file: 2,
    };
    parquet_export::export(&t, &dir, options).unwrap();
    let null = t.store.null_policy().sentinel;
    // The generated trace: one application, four threads per task.
    let object = |row: usize| (row as u128 / 4 + 1, row as u128 % 4 + 1);

    let mut expect: Vec<String> = Vec::new();
    // Per event type: rows, values, sum of values, of times, of objects and CPUs.
    let mut events: BTreeMap<u32, [u128; 5]> = BTreeMap::new();
    for (row, th) in t.store.threads().iter().enumerate() {
        let (task, thread) = object(row);
        for col in &th.events {
            let e = events.entry(col.ty).or_default();
            for i in 0..col.len() {
                let (time, v) = (col.time.get(i), col.value.get(i));
                e[0] += 1;
                if v != null {
                    e[1] += 1;
                    e[2] += u128::from(v);
                }
                e[3] += u128::from(time);
                e[4] += thread + 100 * task;
            }
        }
    }
    assert!(events.values().any(|e| e[1] < e[0]), "no NULL values");
    for (ty, e) in &events {
        expect.push(format!("{ty} {} {} {} {} {}", e[0], e[1], e[2], e[3], e[4]));
    }
    // States: rows, states, sum of states, of begins and ends, of objects.
    let mut s = [0u128; 6];
    for row in 0..t.store.thread_count() {
        let (task, thread) = object(row);
        for (b, e, v) in t.store.states_in(row, 0, u64::MAX) {
            s[0] += 1;
            if v != null {
                s[1] += 1;
                s[2] += u128::from(v);
            }
            s[3] += u128::from(b);
            s[4] += u128::from(e);
            s[5] += thread + 100 * task;
        }
    }
    expect.push(format!(
        "states {} {} {} {} {} {}",
        s[0], s[1], s[2], s[3], s[4], s[5]
    ));
    // Messages: rows, sums of the four times, size, tag, objects and CPUs.
    let mut c = [0u128; 9];
    for m in t.store.comms() {
        let (st, sh) = object(m.send_row as usize);
        let (rt, rh) = object(m.recv_row as usize);
        c[0] += 1;
        for (k, x) in [m.lsend, m.psend, m.lrecv, m.precv, m.size, m.tag]
            .into_iter()
            .enumerate()
        {
            c[k + 1] += u128::from(x);
        }
        c[7] += sh + 100 * st + 10_000 * rh + 1_000_000 * rt;
        c[8] += u128::from(m.send_cpu) + 1000 * u128::from(m.recv_cpu);
    }
    assert!(c[0] > 0);
    let sums: Vec<String> = c.iter().map(u128::to_string).collect();
    expect.push(format!("comms {}", sums.join(" ")));

    let script = r#"
import duckdb
def show(q):
    for r in duckdb.sql(q).fetchall():
        print(" ".join(str(x) for x in r))
h = "::HUGEINT"
show(f"select type, count(*), count(value), coalesce(sum(value{h}), 0), sum(time{h}), "
     f"sum(thread + 100 * task) from 'events/*.parquet' group by type order by type")
show(f"select 'states', count(*), count(state), sum(state{h}), sum(begin{h}), sum(\"end\"{h}), "
     f"sum(thread + 100 * task) from 'states/*.parquet'")
show(f"select 'comms', count(*), sum(logical_send{h}), sum(physical_send{h}), "
     f"sum(logical_recv{h}), sum(physical_recv{h}), sum(size{h}), sum(tag{h}), "
     f"sum(send_thread + 100 * send_task + 10000 * recv_thread + 1000000{h} * recv_task), "
     f"sum(send_cpu + 1000 * recv_cpu) from 'comms/*.parquet'")
"#;
    let got = common::stdout_of(Command::new(&python).args(["-c", script]).current_dir(&dir));
    assert_eq!(got, expect.join("\n") + "\n");
}
