//! Pictures for the command line: the final-score distribution as an SVG file.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;

use yz::game::Game;
use yz::solo::ScoreDistribution;

/// The median's colour: plotters' green is too light on white.
const DARK_GREEN: RGBColor = RGBColor(0, 140, 0);

/// Scores whose probability is below this are left off the picture's x range.
const SHOWN_PROBABILITY: f64 = 1e-6;

/// Writes an SVG picture of `distribution`: P(score = n) over n as a filled line, the mean
/// and the median marked, the x range cut where the probabilities fall below 1e-6.
///
/// # Errors
/// If the picture cannot be drawn or the file cannot be written.
pub fn score_distribution(path: &Path, game: Game, distribution: &ScoreDistribution) -> Result<()> {
    let probabilities = distribution.probabilities();
    let shown = |p: &f64| *p >= SHOWN_PROBABILITY;
    let first = probabilities.iter().position(shown).unwrap_or(0);
    let last = probabilities.iter().rposition(shown).unwrap_or(probabilities.len().saturating_sub(1));
    let (mean, median) = (distribution.mean(), distribution.median());
    let top = probabilities.iter().copied().fold(0.0, f64::max) * 1.1;
    let boxes = if game.categories == game.rules.boxes() {
        String::new()
    } else {
        format!(" ({})", game.box_names().join(","))
    };
    let title = format!(
        "Final score under optimal play, {} rules{boxes}: mean {mean:.2}, sd {:.2}",
        game.rules,
        distribution.standard_deviation()
    );

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(first as f64..last.max(first + 1) as f64, 0.0..top.max(f64::MIN_POSITIVE))
            .map_err(drawing)?;
        chart
            .configure_mesh()
            .x_desc("final score n")
            .y_desc("P(score = n)")
            .x_label_formatter(&|n| format!("{n:.0}"))
            .y_label_formatter(&|p| format!("{p:.3}"))
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(drawing)?;
        let points = (first..=last).map(|n| (n as f64, probabilities[n]));
        chart.draw_series(AreaSeries::new(points, 0.0, BLUE.mix(0.25)).border_style(BLUE)).map_err(drawing)?;
        for (label, x, color) in
            [(format!("mean {mean:.2}"), mean, RED), (format!("median {median}"), median as f64, DARK_GREEN)]
        {
            chart
                .draw_series(LineSeries::new([(x, 0.0), (x, top)], color.stroke_width(2)))
                .map_err(drawing)?
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(drawing)?;
        root.present().map_err(drawing)?;
    }
    yz::store::write_text_atomic(path, &svg).with_context(|| format!("cannot write the plot to {}", path.display()))
}

/// Plotters' errors borrow the backend; keep their message only.
fn drawing(error: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing the plot: {error}")
}
