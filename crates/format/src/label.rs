//! The one way a state, an event value or an event type is named, wherever it is shown
//! (timeline, legend, tooltips, `stats`, `scopes`, CSV exports): the `.pcf` label, without
//! the spaces around it (the `.pcf` keeps them as written), else a name made from the number.

use crate::Pcf;

/// Whose values are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValuesOf<'a> {
    /// State records (`STATES`).
    States,
    /// Any of these event types (the first that labels the value wins).
    Events(&'a [u32]),
}

/// The name of `value`: its non-blank `.pcf` label, trimmed, else the number.
pub fn value_label(pcf: Option<&Pcf>, of: ValuesOf<'_>, value: u64) -> String {
    let label = pcf.and_then(|p| match of {
        ValuesOf::States => p.state_label(value),
        ValuesOf::Events(types) => types.iter().find_map(|&ty| p.value_label(ty, value)),
    });
    match label.map(str::trim) {
        Some(l) if !l.is_empty() => l.to_owned(),
        _ => value.to_string(),
    }
}

/// The name of event type `ty`: its non-blank `.pcf` label, trimmed, else `type 123`.
pub fn type_label(pcf: Option<&Pcf>, ty: u32) -> String {
    match pcf.and_then(|p| p.event_label(ty)).map(str::trim) {
        Some(l) if !l.is_empty() => l.to_owned(),
        _ => format!("type {ty}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadReport;

    #[test]
    fn blank_labels_fall_back_to_numbers_and_labels_are_trimmed() {
        let text = b"STATES\n0 Idle\n1   \n\nEVENT_TYPE\n0 7   Queue  \nVALUES\n0 \n3  three \n\nEVENT_TYPE\n0 8  \n";
        let pcf = Pcf::parse(
            text,
            std::path::Path::new("x.pcf"),
            &mut LoadReport::default(),
        );
        let p = Some(&pcf);
        assert_eq!(value_label(p, ValuesOf::States, 0), "Idle");
        assert_eq!(value_label(p, ValuesOf::States, 1), "1");
        assert_eq!(value_label(p, ValuesOf::States, 2), "2");
        assert_eq!(value_label(p, ValuesOf::Events(&[7]), 0), "0");
        assert_eq!(value_label(p, ValuesOf::Events(&[8, 7]), 3), "three");
        assert_eq!(value_label(None, ValuesOf::Events(&[7]), 3), "3");
        assert_eq!(type_label(p, 7), "Queue");
        assert_eq!(type_label(p, 8), "type 8");
        assert_eq!(type_label(p, 9), "type 9");
    }
}
