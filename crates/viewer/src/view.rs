//! A timeline view: what it reads, how values become colours and labels, and its own null
//! switch.

use egui::Color32;

use super::theme;
use prvscope_format::label::{self, ValuesOf};
use prvscope_store::signal::SignalSpec;
use prvscope_store::summary::DrawMode;
use prvscope_store::{NullPolicy, Trace};

/// How values are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    /// `STATES_COLOR` for states, else Paraver's palette by value.
    Code,
    /// From green (smallest value of the view) to blue (largest), for counters.
    Gradient,
    /// Paraver's function line: each row plots its value, the view's smallest at the row's
    /// bottom and its largest at the top (null: no line).
    FunctionLine,
}

/// The settings of a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewConfig {
    pub spec: SignalSpec,
    pub color: ColorMode,
    /// Draw 0 as null in this view (starts from the trace's policy).
    pub zero_is_null: bool,
    /// What a pixel shows when several values share it.
    pub mode: DrawMode,
    pub comms: bool,
    pub flags: bool,
}

impl ViewConfig {
    /// A view with the trace's defaults: code colours and the dominant value per pixel, or
    /// the gradient and the time-weighted average for types the `.pcf` marks as gradient
    /// (counters).
    pub fn new(trace: &Trace, spec: SignalSpec) -> Self {
        let gradient = match &spec {
            SignalSpec::States => false,
            SignalSpec::Events(types) => {
                let pcf = trace.pcf.as_ref();
                types.iter().all(|ty| {
                    pcf.and_then(|p| p.event_types.get(ty))
                        .is_some_and(|info| info.values.is_empty() && info.gradient != 0)
                })
            }
            SignalSpec::Custom(c) => c.0.gradient,
        };
        let line = matches!(&spec, SignalSpec::Custom(c) if c.0.function_line);
        ViewConfig {
            spec,
            color: if line {
                ColorMode::FunctionLine
            } else if gradient {
                ColorMode::Gradient
            } else {
                ColorMode::Code
            },
            zero_is_null: trace.store.null_policy().zero_is_null,
            mode: if gradient {
                DrawMode::Average
            } else {
                DrawMode::Dominant
            },
            comms: true,
            flags: false,
        }
    }

    /// The view's name, as Paraver titles its windows.
    pub fn name(&self, trace: &Trace) -> String {
        view_name(trace, &self.spec)
    }
}

/// The view a trace opens on: "State" when it has state records; otherwise (ovni traces)
/// the event type that holds the threads' state ("Thread: thread state"), else any type
/// labelled as a state, else the first event type; "State" when there is none.
pub fn first_view(trace: &Trace) -> SignalSpec {
    if trace.store.counts().states > 0 {
        return SignalSpec::States;
    }
    // The type the scope analysis takes the threads' state from, as the breakdowns do.
    let pick = prvscope_analysis::scopes::state_type(trace.pcf.as_ref(), &trace.store)
        .or_else(|| trace.store.event_types().first().copied());
    match pick {
        Some(ty) => SignalSpec::Events(vec![ty]),
        None => SignalSpec::States,
    }
}

/// The name of a view: "State", a type's label, or "MPI call" for 50000001-50000003.
pub fn view_name(trace: &Trace, spec: &SignalSpec) -> String {
    match spec {
        SignalSpec::States => "State".to_owned(),
        SignalSpec::Events(types) if types == &MPI_CALL_TYPES => "MPI call".to_owned(),
        SignalSpec::Events(types) => types
            .iter()
            .map(|&ty| type_label(trace, ty))
            .collect::<Vec<_>>()
            .join(" + "),
        SignalSpec::Custom(c) => c.0.name.clone(),
    }
}

pub use prvscope_format::catalog::MPI_CALL_TYPES;

/// The label of an event type: [`prvscope_format::label::type_label`].
pub fn type_label(trace: &Trace, ty: u32) -> String {
    label::type_label(trace.pcf.as_ref(), ty)
}

/// Turns the values of one view into colours and labels.
#[derive(Debug, Clone)]
pub struct Coloring {
    mode: ColorMode,
    states: bool,
    zero_is_null: bool,
    sentinel: u64,
    /// `STATES_COLOR` (states only), indexed by value for small values.
    state_colors: Vec<Option<Color32>>,
    min: u64,
    max: u64,
}

impl Coloring {
    /// The colouring of `config` over the values `values` (sorted, non-null) of the view.
    pub fn new(
        trace: &Trace,
        config: &ViewConfig,
        values: &std::collections::BTreeSet<u64>,
    ) -> Self {
        let states = config.spec == SignalSpec::States;
        let mut state_colors = Vec::new();
        if states && let Some(pcf) = trace.pcf.as_ref() {
            for (&v, &c) in &pcf.state_colors {
                if let Ok(i) = usize::try_from(v)
                    && i < 4096
                {
                    if state_colors.len() <= i {
                        state_colors.resize(i + 1, None);
                    }
                    state_colors[i] = Some(theme::rgb(c));
                }
            }
        }
        let mut drawn = values
            .iter()
            .copied()
            .filter(|&v| !(config.zero_is_null && v == 0));
        let min = drawn.next().unwrap_or(0);
        let max = drawn.next_back().unwrap_or(min);
        Coloring {
            mode: config.color,
            states,
            zero_is_null: config.zero_is_null,
            sentinel: trace.store.null_policy().sentinel,
            state_colors,
            min,
            max,
        }
    }

    /// Is this raw value null in this view?
    pub fn is_null(&self, value: u64) -> bool {
        NullPolicy {
            sentinel: self.sentinel,
            zero_is_null: self.zero_is_null,
        }
        .is_null(value)
    }

    /// The colour of a raw value, `None` for null (drawn as background).
    pub fn color(&self, value: u64) -> Option<Color32> {
        if self.is_null(value) {
            return None;
        }
        Some(match self.mode {
            ColorMode::Gradient => theme::gradient(value, self.min, self.max),
            ColorMode::FunctionLine => theme::FUNCTION_LINE,
            ColorMode::Code => {
                if self.states
                    && let Some(Some(c)) = usize::try_from(value)
                        .ok()
                        .and_then(|i| self.state_colors.get(i))
                {
                    *c
                } else {
                    theme::palette(value)
                }
            }
        })
    }

    /// The smallest and largest drawn values (the gradient's ends).
    pub fn range(&self) -> (u64, u64) {
        (self.min, self.max)
    }

    /// The colour mode.
    pub fn mode(&self) -> ColorMode {
        self.mode
    }

    /// Where a function line draws `value` in its row: 0 at the bottom (the smallest drawn
    /// value), 1 at the top (the largest); the middle when all values are equal.
    pub fn height(&self, value: u64) -> f32 {
        if self.max > self.min {
            ((value.saturating_sub(self.min)) as f64 / (self.max - self.min) as f64).clamp(0.0, 1.0)
                as f32
        } else {
            0.5
        }
    }
}

/// Does a view's raw value mean something to its user (a state, an event value, a cfg
/// window's category)? A cfg window drawn on a gradient stores a code for each value
/// (`CustomLabels::Linear`): only its label, the real value, is shown.
pub fn raw_is_value(spec: &SignalSpec) -> bool {
    match spec {
        SignalSpec::Custom(c) => !matches!(
            c.0.labels,
            prvscope_store::signal::CustomLabels::Linear { .. }
        ),
        _ => true,
    }
}

/// The label of a raw value in a view: [`prvscope_format::label::value_label`], or `null`.
pub fn value_label(trace: &Trace, spec: &SignalSpec, value: u64, is_null: bool) -> String {
    if is_null {
        return "null".to_owned();
    }
    let of = match spec {
        SignalSpec::States => ValuesOf::States,
        SignalSpec::Events(types) => ValuesOf::Events(types),
        SignalSpec::Custom(c) => return c.0.label(value),
    };
    label::value_label(trace.pcf.as_ref(), of, value)
}
