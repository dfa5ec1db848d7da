//! Drawing a [`Chart`] as SVG.

use std::fmt::Write;

use super::scale::ticks;
use super::text::{compact, coordinate, escaped, exact};
use super::{Chart, Style};

/// The drawing's width and the plot's height, in SVG units.
const WIDTH: f64 = 720.0;
const PLOT_HEIGHT: f64 = 200.0;
/// Room left of the plot for the value ticks, above it, right of it, and below it for the
/// bucket labels.
const LEFT: f64 = 56.0;
const TOP: f64 = 10.0;
const RIGHT: f64 = 12.0;
const BELOW: f64 = 28.0;
/// The legend's rows: their height and how many series one holds.
const LEGEND_ROW: f64 = 18.0;
const LEGEND_PER_ROW: usize = 4;
/// The most bucket labels written under the plot (the others are in the titles).
const LABELS_SHOWN: usize = 8;
/// About how many value ticks past 0.
const TICKS: i64 = 4;
/// The series' colours, in turn (distinct for the common kinds of colour blindness).
const COLOURS: [&str; 8] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000",
];

/// `chart` as an SVG element.
pub(super) fn draw(chart: &Chart<'_>) -> String {
    let buckets = chart.labels.len();
    let named = chart.series.iter().any(|(name, _)| !name.is_empty());
    let legend_rows = if named {
        chart.series.len().div_ceil(LEGEND_PER_ROW)
    } else {
        0
    };
    let height = TOP + PLOT_HEIGHT + BELOW + LEGEND_ROW * legend_rows as f64;
    let max = match chart.style {
        Style::Bars => (0..buckets)
            .map(|bucket| {
                chart
                    .series
                    .iter()
                    .map(|(_, values)| shown(values, bucket))
                    .sum()
            })
            .max(),
        Style::Line => chart
            .series
            .iter()
            .flat_map(|(_, values)| (0..buckets).map(|bucket| shown(values, bucket)))
            .max(),
    };
    let ticks = ticks(max.unwrap_or(0), TICKS);
    let top = ticks.last().copied().unwrap_or(1).max(1);
    let plot = Plot {
        band: (WIDTH - LEFT - RIGHT) / buckets.max(1) as f64,
        top,
    };
    let title = escaped(chart.title);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {} {}\" \
         role=\"img\" aria-label=\"{title}\"><title>{title}</title>",
        coordinate(WIDTH),
        coordinate(height)
    );
    axes(&mut svg, &plot, &ticks, chart.labels);
    match chart.style {
        Style::Bars => bars(&mut svg, &plot, chart),
        Style::Line => lines(&mut svg, &plot, chart),
    }
    if named {
        legend(&mut svg, chart.series);
    }
    svg.push_str("</svg>");
    svg
}

/// Where the plot's values go.
struct Plot {
    /// The width of one bucket.
    band: f64,
    /// The value at the plot's top.
    top: i64,
}

impl Plot {
    /// The height a value takes.
    fn height(&self, value: i64) -> f64 {
        PLOT_HEIGHT * value as f64 / self.top as f64
    }

    /// The y of a value.
    fn y(&self, value: i64) -> f64 {
        TOP + PLOT_HEIGHT - self.height(value)
    }

    /// The x of a bucket's middle.
    fn middle(&self, bucket: usize) -> f64 {
        LEFT + self.band * (bucket as f64 + 0.5)
    }
}

/// The value of `values` in `bucket` as drawn: 0 when missing or negative.
fn shown(values: &[i64], bucket: usize) -> i64 {
    values.get(bucket).copied().unwrap_or(0).max(0)
}

/// The value axis (a line and label per tick) and some bucket labels under the plot.
fn axes(svg: &mut String, plot: &Plot, ticks: &[i64], labels: &[String]) {
    svg.push_str("<g class=\"axes\" font-size=\"11\" fill=\"currentColor\">");
    for tick in ticks {
        let y = coordinate(plot.y(*tick));
        let _ = write!(
            svg,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{y}\" y2=\"{y}\" stroke=\"currentColor\" \
             stroke-opacity=\"0.2\"/><text x=\"{}\" y=\"{y}\" text-anchor=\"end\" \
             dominant-baseline=\"middle\">{}</text>",
            coordinate(LEFT),
            coordinate(WIDTH - RIGHT),
            coordinate(LEFT - 6.0),
            compact(*tick)
        );
    }
    let every = labels.len().div_ceil(LABELS_SHOWN).max(1);
    for (bucket, label) in labels.iter().enumerate().step_by(every) {
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            coordinate(plot.middle(bucket)),
            coordinate(TOP + PLOT_HEIGHT + 16.0),
            escaped(label)
        );
    }
    svg.push_str("</g>");
}

/// What a bar's or point's title says: the bucket, the series when named, the exact value.
fn title(label: &str, series: &str, value: i64) -> String {
    if series.is_empty() {
        format!("<title>{}: {}</title>", escaped(label), exact(value))
    } else {
        format!(
            "<title>{}, {}: {}</title>",
            escaped(label),
            escaped(series),
            exact(value)
        )
    }
}

/// A bar per bucket, the series stacked in order; a segment per value above 0.
fn bars(svg: &mut String, plot: &Plot, chart: &Chart<'_>) {
    let width = plot.band * 0.8;
    svg.push_str("<g class=\"bars\">");
    for (bucket, label) in chart.labels.iter().enumerate() {
        let mut stacked = 0;
        for (index, (name, values)) in chart.series.iter().enumerate() {
            let value = shown(values, bucket);
            if value == 0 {
                continue;
            }
            let exact_value = values.get(bucket).copied().unwrap_or(0);
            let _ = write!(
                svg,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">{}</rect>",
                coordinate(plot.middle(bucket) - width / 2.0),
                coordinate(plot.y(stacked + value)),
                coordinate(width),
                coordinate(plot.height(value)),
                COLOURS[index % COLOURS.len()],
                title(label, name, exact_value)
            );
            stacked += value;
        }
    }
    svg.push_str("</g>");
}

/// A line per series and a point per bucket.
fn lines(svg: &mut String, plot: &Plot, chart: &Chart<'_>) {
    svg.push_str("<g class=\"lines\">");
    for (index, (name, values)) in chart.series.iter().enumerate() {
        let colour = COLOURS[index % COLOURS.len()];
        let points: Vec<String> = (0..chart.labels.len())
            .map(|bucket| {
                format!(
                    "{},{}",
                    coordinate(plot.middle(bucket)),
                    coordinate(plot.y(shown(values, bucket)))
                )
            })
            .collect();
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            points.join(" ")
        );
        for (bucket, label) in chart.labels.iter().enumerate() {
            let _ = write!(
                svg,
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{colour}\">{}</circle>",
                coordinate(plot.middle(bucket)),
                coordinate(plot.y(shown(values, bucket))),
                title(label, name, values.get(bucket).copied().unwrap_or(0))
            );
        }
    }
    svg.push_str("</g>");
}

/// The series' names by their colours, in rows under the bucket labels.
fn legend(svg: &mut String, series: &[(String, Vec<i64>)]) {
    let column = (WIDTH - LEFT - RIGHT) / LEGEND_PER_ROW as f64;
    svg.push_str("<g class=\"legend\" font-size=\"11\" fill=\"currentColor\">");
    for (index, (name, _)) in series.iter().enumerate() {
        let x = LEFT + column * (index % LEGEND_PER_ROW) as f64;
        let y = TOP + PLOT_HEIGHT + BELOW + LEGEND_ROW * (index / LEGEND_PER_ROW) as f64;
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{}\">{}</text>",
            coordinate(x),
            coordinate(y),
            COLOURS[index % COLOURS.len()],
            coordinate(x + 14.0),
            coordinate(y + 9.0),
            escaped(name)
        );
    }
    svg.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(count: usize) -> Vec<String> {
        (0..count).map(|hour| format!("{hour:02}:00")).collect()
    }

    fn count(svg: &str, what: &str) -> usize {
        svg.matches(what).count()
    }

    #[test]
    fn stacked_bars_have_a_segment_and_an_exact_title_per_value() {
        let labels = labels(3);
        let series = [
            ("item:7".to_owned(), vec![2, 0, 1_500]),
            ("pack:<3>".to_owned(), vec![1, 4, 0]),
        ];
        let chart = Chart {
            title: "Purchases",
            labels: &labels,
            series: &series,
            style: Style::Bars,
        };
        let svg = chart.to_svg();
        assert_eq!(
            count(&svg, "<rect x"),
            4 + series.len(),
            "4 segments and the legend's keys"
        );
        assert!(svg.contains("<title>02:00, item:7: 1,500</title>"));
        assert!(svg.contains("<title>00:00, pack:&lt;3&gt;: 1</title>"));
        assert!(
            svg.contains(">pack:&lt;3&gt;</text>"),
            "the legend names each series"
        );
        assert!(svg.contains("role=\"img\" aria-label=\"Purchases\""));
        assert!(!svg.contains("<3>"));
        assert!(svg.ends_with("</svg>"));
    }

    #[test]
    fn the_tallest_stack_fits_under_the_top_tick() {
        let labels = labels(2);
        let series = [
            ("a".to_owned(), vec![60, 10]),
            ("b".to_owned(), vec![40, 10]),
        ];
        let chart = Chart {
            title: "t",
            labels: &labels,
            series: &series,
            style: Style::Bars,
        };
        let svg = chart.to_svg();
        // The stack of 100 reaches the top tick (100) exactly, at the plot's top.
        assert!(svg.contains(&format!("y=\"{}\"", coordinate(TOP))));
        assert!(svg.contains(">100</text>"));
    }

    #[test]
    fn lines_have_a_point_and_title_per_bucket_zeros_too() {
        let labels = labels(48);
        let values: Vec<i64> = (0..48).collect();
        let series = [(String::new(), values)];
        let chart = Chart {
            title: "Sign-ins",
            labels: &labels,
            series: &series,
            style: Style::Line,
        };
        let svg = chart.to_svg();
        assert_eq!(count(&svg, "<circle"), 48);
        assert!(svg.contains("<title>00:00: 0</title>"));
        assert!(svg.contains("<title>47:00: 47</title>"));
        assert_eq!(
            count(&svg, "<text x") - count(&svg, "text-anchor=\"end\""),
            8,
            "8 labels"
        );
        assert!(
            !svg.contains("class=\"legend\""),
            "one unnamed series needs no legend"
        );
    }

    #[test]
    fn an_empty_chart_still_draws_its_axes() {
        let chart = Chart {
            title: "Nothing",
            labels: &[],
            series: &[],
            style: Style::Bars,
        };
        let svg = chart.to_svg();
        assert!(svg.contains(">0</text>") && svg.contains(">1</text>"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }
}
