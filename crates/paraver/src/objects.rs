//! Paraver's objects at each level of the process model (workload, applications, tasks,
//! threads) and the resource model (system, nodes, CPUs): the object model's
//! ([`prvscope_format::model`]), shared with the store, the viewer and the command line.

pub use prvscope_format::model::Objects;
