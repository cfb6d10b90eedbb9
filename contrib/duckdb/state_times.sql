-- Time per state per thread over the whole trace, as `prvscope stats --csv` gives it, from the
-- tables of `prvscope export TRACE --parquet DIR` (run in DIR: `cd DIR && duckdb < state_times.sql`).
-- A thread's time outside any state record counts as state 0, as in Paraver; records are
-- clipped to the trace's end.
with t as (select end_time from 'trace/*.parquet'),
s as (
  select appl, task, thread, state,
         sum(least("end", (select end_time from t)) - "begin") as ticks
  from 'states/*.parquet'
  where "begin" < (select end_time from t)
  group by appl, task, thread, state),
gaps as (
  select o.appl, o.task, o.thread, 0 as state,
         (select end_time from t) - coalesce(sum(s.ticks), 0) as ticks
  from 'objects/*.parquet' o left join s using (appl, task, thread)
  group by o.appl, o.task, o.thread),
all_time as (select * from s union all select * from gaps)
select o.name as thread, coalesce(l.label, cast(a.state as varchar)) as state,
       sum(a.ticks) as ticks
from all_time a
join 'objects/*.parquet' o using (appl, task, thread)
left join 'labels/*.parquet' l on l.kind = 'state' and l.value = a.state
group by o.row, o.name, a.state, l.label
having sum(a.ticks) > 0
order by o.row, a.state;
