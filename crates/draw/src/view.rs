//! A timeline view: what it reads, how values become colours and labels, and its own null
//! switch.

use epaint::Color32;

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

/// What a gradient's (or function line's) scale spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// The smallest and largest values drawn in the window (Paraver's "fit semantic scale").
    #[default]
    Fit,
    /// As [`Scale::Fit`], without the drawn pixels' lowest and highest percent: a value
    /// that holds a few pixels does not flatten the rest.
    Clip,
    /// The smallest and largest values of the whole trace.
    Whole,
    /// From one raw value to another, as the user set them.
    Manual(u64, u64),
}

impl Scale {
    pub const CHOICES: [(Scale, &'static str); 3] = [
        (Scale::Fit, "fit to the window"),
        (Scale::Clip, "fit, outliers clipped (1%)"),
        (Scale::Whole, "the whole trace"),
    ];

    /// Its name in the legend.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Manual(..) => "set by hand",
            s => Scale::CHOICES.iter().find(|c| c.0 == s).map_or("", |c| c.1),
        }
    }
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
    /// The span of a gradient or function line.
    pub scale: Scale,
    /// Paraver's gradient function.
    pub function: GradientFn,
}

/// Paraver's gradient function: how a value's place in the scale becomes a colour (and a
/// function line's height).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GradientFn {
    #[default]
    Linear,
    /// By the logarithm of the distance from the scale's low end, so that values that span
    /// decades all show.
    Logarithmic,
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
            scale: Scale::Fit,
            function: GradientFn::Linear,
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
    log: bool,
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
            log: config.function == GradientFn::Logarithmic,
        }
    }

    /// Where `value` falls in the scale, from 0 (its low end or below) to 1 (its high end
    /// or above), linearly or by the logarithm of its distance from the low end.
    pub fn fraction(&self, value: u64) -> f64 {
        if self.max <= self.min {
            return 1.0;
        }
        let (d, span) = (value.saturating_sub(self.min), self.max - self.min);
        let f = if self.log {
            (d as f64).ln_1p() / (span as f64).ln_1p()
        } else {
            d as f64 / span as f64
        };
        f.clamp(0.0, 1.0)
    }

    /// The raw value at fraction `f` of the scale (the inverse of [`Coloring::fraction`]).
    pub fn value_at(&self, f: f64) -> u64 {
        let span = self.max.saturating_sub(self.min) as f64;
        let d = if self.log {
            (f * span.ln_1p()).exp_m1()
        } else {
            f * span
        };
        self.min + d.round().clamp(0.0, span) as u64
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
            ColorMode::Gradient => theme::gradient_at(self.fraction(value)),
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

    /// The smallest and largest values of the scale (the gradient's ends).
    pub fn range(&self) -> (u64, u64) {
        (self.min, self.max)
    }

    /// This colouring with its scale as `scale` says, over the `drawn` pixels' values of a
    /// window (null ones are skipped): code colours are left as they are, and a window with
    /// nothing drawn keeps the whole trace's range. Values beyond the scale take its end
    /// colours (function lines: its bottom or top).
    #[must_use]
    pub fn fitted(&self, scale: Scale, drawn: impl Iterator<Item = u64>) -> Coloring {
        let mut out = self.clone();
        if self.mode == ColorMode::Code {
            return out;
        }
        match scale {
            Scale::Whole => {}
            Scale::Manual(a, b) => (out.min, out.max) = (a.min(b), a.max(b)),
            Scale::Fit => {
                let (mut lo, mut hi) = (u64::MAX, 0);
                for v in drawn.filter(|&v| !self.is_null(v)) {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                if lo <= hi {
                    (out.min, out.max) = (lo, hi);
                }
            }
            Scale::Clip => {
                let mut values: Vec<u64> = drawn.filter(|&v| !self.is_null(v)).collect();
                if !values.is_empty() {
                    let n = values.len();
                    let k = n / 100;
                    let (_, &mut lo, _) = values.select_nth_unstable(k);
                    let (_, &mut hi, _) = values.select_nth_unstable(n - 1 - k);
                    (out.min, out.max) = (lo, hi);
                }
            }
        }
        out
    }

    /// The colour mode.
    pub fn mode(&self) -> ColorMode {
        self.mode
    }

    /// Where a function line draws `value` in its row: 0 at the bottom (the smallest drawn
    /// value), 1 at the top (the largest); the middle when all values are equal.
    pub fn height(&self, value: u64) -> f32 {
        if self.max > self.min {
            self.fraction(value) as f32
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

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(log: bool) -> Coloring {
        Coloring {
            mode: ColorMode::Gradient,
            states: false,
            zero_is_null: false,
            sentinel: u64::MAX,
            state_colors: Vec::new(),
            min: 0,
            max: 1_000_000,
            log,
        }
    }

    #[test]
    fn scales_fit_clip_keep_or_take_what_they_are_given() {
        let c = gradient(false);
        // 200 pixels from 100 to 299, and two outliers; null pixels do not count.
        let drawn: Vec<u64> = (100..300).chain([5, 900_000, u64::MAX]).collect::<Vec<_>>();
        let fit = c.fitted(Scale::Fit, drawn.iter().copied());
        assert_eq!(fit.range(), (5, 900_000));
        // 202 values: a percent is 2 of them at each end.
        let clip = c.fitted(Scale::Clip, drawn.iter().copied());
        assert_eq!(clip.range(), (101, 298));
        assert_eq!(
            c.fitted(Scale::Whole, drawn.iter().copied()).range(),
            (0, 1_000_000)
        );
        assert_eq!(
            c.fitted(Scale::Manual(7, 3), drawn.iter().copied()).range(),
            (3, 7)
        );
        // Nothing drawn: the whole trace's range stays.
        assert_eq!(
            c.fitted(Scale::Fit, std::iter::empty()).range(),
            (0, 1_000_000)
        );
        // Beyond the scale: its end colours.
        assert_eq!(clip.color(5), clip.color(101));
        assert_eq!(clip.color(900_000), clip.color(298));
        // Code colours have no scale.
        let code = Coloring {
            mode: ColorMode::Code,
            ..c.clone()
        };
        assert_eq!(
            code.fitted(Scale::Fit, drawn.into_iter()).range(),
            (0, 1_000_000)
        );
    }

    #[test]
    fn a_fraction_and_its_value_are_inverses_linear_and_logarithmic() {
        for log in [false, true] {
            let c = gradient(log);
            assert!(c.fraction(0).abs() < f64::EPSILON);
            assert!((c.fraction(1_000_000) - 1.0).abs() < f64::EPSILON);
            assert!((c.fraction(2_000_000) - 1.0).abs() < f64::EPSILON);
            for k in 0..=20 {
                let f = f64::from(k) / 20.0;
                let v = c.value_at(f);
                assert!((c.fraction(v) - f).abs() < 1e-3, "{log} {f} {v}");
            }
        }
        // The logarithm gives a decade the same room wherever it is.
        let c = gradient(true);
        let d1 = c.fraction(1000) - c.fraction(100);
        let d2 = c.fraction(100_000) - c.fraction(10_000);
        assert!((d1 - d2).abs() < 0.01, "{d1} {d2}");
    }
}
