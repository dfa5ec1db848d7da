//! Charts drawn on the server as inline SVG, for pages that run no script (the operator
//! console): bars (stacked when there are several series, such as purchases by item) or lines,
//! over labelled buckets, with a value axis of a few round ticks, a legend, and a `<title>` on
//! every bar and point giving its exact value. Pure: a chart in, a string out.
//!
//! `scale.rs` picks the value axis's ticks, `text.rs` escapes text and writes numbers, and
//! `svg.rs` draws.

mod scale;
mod svg;
mod text;

/// How the values are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A bar per bucket, the series stacked in order.
    Bars,
    /// A line per series, a point per bucket.
    Line,
}

/// What a chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chart<'a> {
    /// What it shows, its accessible name (`Sign-ins per hour`).
    pub title: &'a str,
    /// Each bucket's label, in order (`11:00`, `2026-11-23`).
    pub labels: &'a [String],
    /// Each series' name (empty for a chart of one unnamed series) and its value per bucket
    /// (as many as the labels; a missing value counts 0, a negative one is drawn as 0 and
    /// told exactly in its title).
    pub series: &'a [(String, Vec<i64>)],
    /// Bars or lines.
    pub style: Style,
}

impl Chart<'_> {
    /// The chart as an SVG element, to be put in a page as it is.
    ///
    /// ```
    /// use safezone_core::chart::{Chart, Style};
    ///
    /// let labels = ["10:00".to_owned(), "11:00".to_owned()];
    /// let series = [(String::new(), vec![3, 1200])];
    /// let chart = Chart { title: "Sign-ins <hourly>", labels: &labels, series: &series, style: Style::Bars };
    /// let svg = chart.to_svg();
    /// assert!(svg.starts_with("<svg"));
    /// assert!(svg.contains("<title>Sign-ins &lt;hourly&gt;</title>"));
    /// assert!(svg.contains("<title>11:00: 1,200</title>"));
    /// ```
    pub fn to_svg(&self) -> String {
        svg::draw(self)
    }
}
