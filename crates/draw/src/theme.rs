//! Every colour of the viewer, in one place.
//!
//! The timeline follows wxparaver: a black background (which is also "no value"), white
//! text, Paraver's 49-colour code palette, and its green-to-blue gradient for counters.

use epaint::Color32;

/// Timeline background, and the colour of null (nothing is drawn there).
pub const BACKGROUND: Color32 = Color32::BLACK;
/// Text on the timeline.
pub const FOREGROUND: Color32 = Color32::WHITE;
/// Background of the row label column.
pub const LABEL_BACKGROUND: Color32 = Color32::from_rgb(12, 12, 12);
/// Alternate rows of the label column.
pub const LABEL_STRIPE: Color32 = Color32::from_rgb(24, 24, 24);
/// Axis lines and ticks.
pub const AXIS: Color32 = Color32::from_rgb(200, 200, 200);
/// Faint vertical grid lines at the ruler's ticks.
pub const GRID: Color32 = Color32::from_rgba_premultiplied(40, 40, 40, 40);
/// The line between two applications' rows.
pub const APP_SEPARATOR: Color32 = Color32::from_rgb(120, 160, 255);
/// Logical communications (Paraver's default yellow).
pub const COMM: Color32 = Color32::from_rgb(255, 255, 0);
/// Event flags.
pub const FLAG: Color32 = Color32::from_rgb(255, 255, 255);
/// A function line, as Paraver draws it in the foreground colour.
pub const FUNCTION_LINE: Color32 = Color32::from_rgb(235, 235, 235);
/// The bottom of a function-line row (its axis).
pub const FUNCTION_BASELINE: Color32 = Color32::from_rgb(70, 70, 70);
/// The range being selected with shift-drag or right-drag.
pub const SELECTION: Color32 = Color32::from_rgba_premultiplied(60, 60, 90, 90);
/// Its border.
pub const SELECTION_EDGE: Color32 = Color32::from_rgb(160, 160, 255);
/// The hovered time (vertical line).
pub const CURSOR: Color32 = Color32::from_rgb(255, 255, 255);
/// Highlight of the pinned interval.
pub const PINNED: Color32 = Color32::from_rgb(255, 80, 200);
/// Markers (key M) across the rows.
pub const MARKER: Color32 = Color32::from_rgb(255, 220, 90);
/// Group headers of collapsed rows.
pub const GROUP_TEXT: Color32 = Color32::from_rgb(150, 200, 255);
/// Warnings in the load report.
pub const WARNING: Color32 = Color32::from_rgb(255, 190, 60);
/// Errors.
pub const ERROR: Color32 = Color32::from_rgb(255, 90, 90);

/// Scope panel: background of the source text.
pub const SOURCE_BACKGROUND: Color32 = Color32::from_rgb(20, 20, 24);
/// Scope panel: source text.
pub const SOURCE_TEXT: Color32 = Color32::from_rgb(220, 220, 220);
/// Scope panel: a scope's category bar where the thread had no state record.
pub const NO_STATE: Color32 = Color32::from_rgb(90, 90, 90);
/// Scope panel: the selected scope's outline, and its intervals on the timeline.
pub const SCOPE_SELECTED: Color32 = Color32::from_rgb(0, 230, 255);

/// A grey for a share in `[0, 1]`: dark for none, light for all (heat on a dark panel).
pub fn heat_grey(share: f64) -> Color32 {
    let v = (40.0 + 200.0 * share.clamp(0.0, 1.0).sqrt()).round() as u8;
    Color32::from_rgb(v, v, v)
}

/// Paraver's default code colours (`SemanticColor::codeColor`): value `v` takes colour
/// `v mod 49`. The first 16 are also its default state colours.
pub const PARAVER_PALETTE: [[u8; 3]; 49] = [
    [117, 195, 255],
    [0, 0, 255],
    [255, 255, 255],
    [255, 0, 0],
    [255, 0, 174],
    [179, 0, 0],
    [0, 255, 0],
    [255, 255, 0],
    [235, 0, 0],
    [0, 162, 0],
    [255, 0, 255],
    [100, 100, 177],
    [172, 174, 41],
    [255, 144, 26],
    [2, 255, 177],
    [192, 224, 0],
    [66, 66, 66],
    [189, 168, 100],
    [95, 200, 0],
    [203, 60, 69],
    [0, 109, 255],
    [200, 61, 68],
    [200, 66, 0],
    [0, 41, 0],
    [139, 121, 177],
    [116, 116, 116],
    [200, 50, 89],
    [255, 171, 98],
    [0, 68, 189],
    [52, 43, 0],
    [255, 46, 0],
    [100, 216, 32],
    [0, 0, 112],
    [105, 105, 0],
    [132, 75, 255],
    [184, 232, 0],
    [0, 109, 112],
    [189, 168, 100],
    [132, 75, 75],
    [255, 75, 75],
    [255, 20, 0],
    [52, 0, 0],
    [0, 66, 0],
    [184, 132, 0],
    [100, 16, 32],
    [146, 255, 255],
    [0, 23, 37],
    [146, 0, 255],
    [0, 138, 119],
];

/// Paraver's default gradient: from green (minimum) to blue (maximum).
pub const GRADIENT_BEGIN: [u8; 3] = [0, 255, 0];
/// The gradient's end.
pub const GRADIENT_END: [u8; 3] = [0, 0, 255];

/// An RGB triple as a colour.
pub const fn rgb(c: [u8; 3]) -> Color32 {
    Color32::from_rgb(c[0], c[1], c[2])
}

/// The palette colour of a value.
pub fn palette(value: u64) -> Color32 {
    let i = (value % PARAVER_PALETTE.len() as u64) as usize;
    rgb(PARAVER_PALETTE[i])
}

/// The gradient colour of `value` within `[min, max]`.
pub fn gradient(value: u64, min: u64, max: u64) -> Color32 {
    let f = if max > min {
        (value.saturating_sub(min)) as f64 / (max - min) as f64
    } else {
        1.0
    };
    gradient_at(f)
}

/// The gradient colour at `f` of the way from its beginning (0) to its end (1).
pub fn gradient_at(f: f64) -> Color32 {
    let mix = |a: u8, b: u8| {
        (f64::from(a) + (f64::from(b) - f64::from(a)) * f.clamp(0.0, 1.0)).round() as u8
    };
    Color32::from_rgb(
        mix(GRADIENT_BEGIN[0], GRADIENT_END[0]),
        mix(GRADIENT_BEGIN[1], GRADIENT_END[1]),
        mix(GRADIENT_BEGIN[2], GRADIENT_END[2]),
    )
}

/// Text drawn over a colour: black on light colours, white on dark ones.
pub fn text_on(c: Color32) -> Color32 {
    let luma = 0.299 * f32::from(c.r()) + 0.587 * f32::from(c.g()) + 0.114 * f32::from(c.b());
    if luma > 140.0 {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}
