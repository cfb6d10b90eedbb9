//! The event types of Extrae (and the Paraver tools around it) that prvscope gives a meaning
//! to: functions, OpenMP, MPI calls, sampled functions and the line types beside them.

/// User functions (Extrae's `-finstrument-functions` and function lists).
pub const TYPE_USER_FUNCTION: u32 = 60_000_019;
/// The source line of [`TYPE_USER_FUNCTION`]'s values.
pub const TYPE_USER_FUNCTION_LINE: u32 = 60_000_119;
/// OpenMP parallel functions (outlined regions).
pub const TYPE_OMP_FUNCTION: u32 = 60_000_018;
/// OpenMP task functions.
pub const TYPE_OMP_TASK_FUNCTION: u32 = 60_000_023;
/// MPI point-to-point calls: the first of the MPI call types.
pub const TYPE_MPI_FIRST: u32 = 50_000_001;
/// MPI other calls: the last of the MPI call types.
pub const TYPE_MPI_LAST: u32 = 50_000_003;
/// The MPI call types read together as "MPI call" (point-to-point, collective, other).
pub const MPI_CALL_TYPES: [u32; 3] = [TYPE_MPI_FIRST, 50_000_002, TYPE_MPI_LAST];
/// Sampled functions (Extrae's sampling with call-stack unwinding).
pub const TYPE_SAMPLED_FUNCTION: u32 = 30_000_000;
/// The function a pthread runs (Extrae's `pthread function`, the routine given to
/// `pthread_create`; its line type is 60000120).
pub const TYPE_PTHREAD_FUNCTION: u32 = 60_000_020;
/// pthread calls (Extrae's `pthread call`: create, join, mutexes, barriers...).
pub const TYPE_PTHREAD_CALL: u32 = 61_000_000;

/// Is `ty` one of the MPI call types?
pub fn is_mpi_call(ty: u32) -> bool {
    (TYPE_MPI_FIRST..=TYPE_MPI_LAST).contains(&ty)
}

/// The type whose labels give the source line of a scope type's values, if any.
pub fn line_type_of(ty: u32) -> Option<u32> {
    match ty {
        60_000_000..=60_000_099 | 30_000_000..=30_000_099 => Some(ty + 100),
        70_000_001..=70_000_099 => Some(ty + 10_000_000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpi_call_types_are_the_mpi_range() {
        assert!(MPI_CALL_TYPES.iter().all(|&t| is_mpi_call(t)));
        assert_eq!(
            (TYPE_MPI_FIRST..=TYPE_MPI_LAST).count(),
            MPI_CALL_TYPES.len()
        );
        assert_eq!(
            line_type_of(TYPE_USER_FUNCTION),
            Some(TYPE_USER_FUNCTION_LINE)
        );
        assert_eq!(line_type_of(50_000_002), None);
    }
}
