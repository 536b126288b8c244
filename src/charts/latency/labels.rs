//! Where the current load's value labels go: beside their dots, clear of the curves and of each other. At low load
//! the four curves run close together along the bottom of a linear axis, and labels stacked at their dots' heights
//! would sit on the very lines they name; each label instead takes the nearest spot that covers no curve, no dot and
//! no other label, and a leader line joins it to its dot when it had to move.

/// A rectangle in pixels, edges included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// A straight piece of a curve, in pixels.
pub(crate) type Segment = ((i32, i32), (i32, i32));

impl Rect {
    fn overlaps(&self, other: &Rect, gap: i32) -> bool {
        self.left < other.right + gap
            && other.left < self.right + gap
            && self.top < other.bottom + gap
            && other.top < self.bottom + gap
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        (f64::from(self.left)..=f64::from(self.right)).contains(&x)
            && (f64::from(self.top)..=f64::from(self.bottom)).contains(&y)
    }

    /// Whether `segment` passes through the rectangle (Liang–Barsky clipping: some part of it survives).
    fn crosses(&self, ((x0, y0), (x1, y1)): Segment) -> bool {
        // Most pieces tested lie wholly to one side: a test of their bounds settles those.
        if x0.max(x1) < self.left
            || x0.min(x1) > self.right
            || y0.max(y1) < self.top
            || y0.min(y1) > self.bottom
        {
            return false;
        }
        let (x0, y0, dx, dy) = (
            f64::from(x0),
            f64::from(y0),
            f64::from(x1 - x0),
            f64::from(y1 - y0),
        );
        if self.contains((x0, y0)) {
            return true;
        }
        let (mut enter, mut leave) = (0.0_f64, 1.0_f64);
        let edges = [
            (-dx, x0 - f64::from(self.left)),
            (dx, f64::from(self.right) - x0),
            (-dy, y0 - f64::from(self.top)),
            (dy, f64::from(self.bottom) - y0),
        ];
        for (p, q) in edges {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else if p < 0.0 {
                enter = enter.max(q / p);
            } else {
                leave = leave.min(q / p);
            }
        }
        enter <= leave
    }
}

/// What the labels must keep clear of, and where they may go.
pub(crate) struct Room<'a> {
    /// The plot; labels stay inside it.
    pub plot: Rect,
    /// The current load's vertical line, and how far a label keeps from it.
    pub marker_x: i32,
    pub gap: i32,
    /// Every curve drawn, as segments.
    pub curves: &'a [Segment],
    /// The dots at the current load.
    pub dots: &'a [Rect],
}

/// Boxes for labels of `(width, height)` wanting to sit level with their dots at `dot_y`, ordered top to bottom.
/// Each takes the nearest height, on the marker's roomier side first, where it covers no curve, dot or label placed
/// before it; failing that, the nearest spot covering the fewest. Labels keep their dots' order and never overlap.
/// They are placed from the top down and from the bottom up, and the placing that covers less is kept: placed from
/// the top alone, the lower labels could be left only the spots over a measured run's rings under the upper ones.
/// `None` when the plot is too short to hold them apart.
pub(crate) fn place_labels(labels: &[(i32, i32, i32)], room: &Room<'_>) -> Option<Vec<Rect>> {
    // Every box lies beside the marker, within its widest label of it: a curve piece wholly left or right of that
    // band crosses none. Leaving those out spares the search most of its tests (a drag places the labels at every
    // step, and the curves and the exact one have hundreds of pieces).
    let widest = labels.iter().map(|l| l.1).max().unwrap_or(0);
    let band = (
        room.marker_x - room.gap - widest,
        room.marker_x + room.gap + widest,
    );
    let near: Vec<Segment> = room
        .curves
        .iter()
        .copied()
        .filter(|&((x0, _), (x1, _))| x0.max(x1) >= band.0 && x0.min(x1) <= band.1)
        .collect();
    let room = &Room {
        curves: &near,
        ..*room
    };
    let down = place_downwards(labels, room);
    // Bottom up is top down with the picture turned upside down.
    let flip = |r: &Rect| Rect {
        top: -r.bottom,
        bottom: -r.top,
        ..*r
    };
    let curves: Vec<Segment> = room
        .curves
        .iter()
        .map(|&((x0, y0), (x1, y1))| ((x0, -y0), (x1, -y1)))
        .collect();
    let dots: Vec<Rect> = room.dots.iter().map(flip).collect();
    let upside_down = Room {
        plot: flip(&room.plot),
        curves: &curves,
        dots: &dots,
        ..*room
    };
    let turned: Vec<(i32, i32, i32)> = labels.iter().rev().map(|&(y, w, h)| (-y, w, h)).collect();
    let up = place_downwards(&turned, &upside_down)
        .map(|boxes| boxes.iter().rev().map(flip).collect::<Vec<_>>());
    let cost = |boxes: &[Rect]| boxes.iter().map(|r| covered(r, room)).sum::<usize>();
    match (down, up) {
        (Some(down), Some(up)) if cost(&up) < cost(&down) => Some(up),
        (down, up) => down.or(up),
    }
}

/// [`place_labels`] from the top down.
fn place_downwards(labels: &[(i32, i32, i32)], room: &Room<'_>) -> Option<Vec<Rect>> {
    let widest = labels.iter().map(|l| l.1).max().unwrap_or(0);
    let left_fits = room.marker_x - room.gap - widest >= room.plot.left;
    let sides: &[bool] = if left_fits { &[true, false] } else { &[false] };
    let mut placed: Vec<Rect> = Vec::with_capacity(labels.len());
    for (index, &(dot_y, width, height)) in labels.iter().enumerate() {
        // Room kept below for the labels still to come, so a label placed low never leaves them nowhere to go.
        let after = &labels[index + 1..];
        let below: i32 = after.iter().map(|l| l.2 + 1).sum();
        // The band this label's top may take: under the label above, over the room kept below.
        let highest = placed
            .last()
            .map_or(room.plot.top, |above| above.bottom + 1);
        let lowest = room.plot.bottom - below - height;
        if highest > lowest {
            return None;
        }
        let step = (height / 3).max(1);
        let reach = (room.plot.bottom - room.plot.top) / step + 1;
        let mut best: Option<(usize, Rect)> = None;
        'search: for k in 0..=reach {
            for offset in [-k * step, k * step] {
                for &left_side in sides {
                    let left = if left_side {
                        room.marker_x - room.gap - width
                    } else {
                        room.marker_x + room.gap
                    };
                    let top = (dot_y + offset - height / 2).clamp(highest, lowest);
                    let rect = Rect {
                        left,
                        top,
                        right: left + width,
                        bottom: top + height,
                    };
                    if rect.right > room.plot.right {
                        continue;
                    }
                    let cost = covered(&rect, room);
                    if best.is_none_or(|(least, _)| cost < least) {
                        best = Some((cost, rect));
                    }
                    if cost == 0 {
                        break 'search;
                    }
                }
                if k == 0 {
                    break;
                }
            }
        }
        placed.push(best?.1);
    }
    Some(placed)
}

/// What covering a dot or a ring costs, in curve segments crossed: a label over a mark hides both (the value beside
/// the "p50" dot printed across a measured run's ring), while a curve still reads through the gap a label leaves in
/// it, so a label crosses any number of curve pieces before it covers a mark.
const MARK_COST: usize = 1000;

/// What `rect` covers: the curve segments it crosses, and each dot or ring at [`MARK_COST`].
fn covered(rect: &Rect, room: &Room<'_>) -> usize {
    let curves = room.curves.iter().filter(|s| rect.crosses(**s)).count();
    let dots = room.dots.iter().filter(|d| rect.overlaps(d, 0)).count();
    curves + dots * MARK_COST
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four curves rising to the right from near the bottom of a 200 px plot, as the lab's at 85% load on a linear
    /// axis (mean, p50, p95, p99 from 6 to 30 px above the axis, p99 leaving through the top).
    fn low_curves() -> Vec<Segment> {
        let mut segments = Vec::new();
        for (start, rise) in [(194, 20), (192, 30), (184, 90), (170, 220)] {
            let points: Vec<(i32, i32)> = (0..10)
                .map(|i| (60 + 50 * i, start - rise * i * i / 81))
                .collect();
            segments.extend(points.windows(2).map(|w| (w[0], w[1])));
        }
        segments
    }

    #[test]
    fn labels_at_low_load_move_off_the_curves_and_never_onto_each_other() {
        let plot = Rect {
            left: 50,
            top: 0,
            right: 550,
            bottom: 200,
        };
        let curves = low_curves();
        let dots: Vec<Rect> = [170, 184, 192, 194]
            .iter()
            .map(|&y| Rect {
                left: 54,
                top: y - 6,
                right: 66,
                bottom: y + 6,
            })
            .collect();
        let room = Room {
            plot,
            marker_x: 60,
            gap: 10,
            curves: &curves,
            dots: &dots,
        };
        let labels = [
            (170, 110, 20),
            (184, 110, 20),
            (192, 110, 20),
            (194, 110, 20),
        ];
        let boxes = place_labels(&labels, &room).expect("room for four labels");
        // Level with their dots (where they sat before), the labels lie across the curves they name.
        let level: usize = labels
            .iter()
            .map(|&(y, w, h)| {
                let top = y - h / 2;
                covered(
                    &Rect {
                        left: 70,
                        top,
                        right: 70 + w,
                        bottom: top + h,
                    },
                    &room,
                )
            })
            .sum();
        let placed: usize = boxes.iter().map(|rect| covered(rect, &room)).sum();
        assert!(
            placed * 2 <= level,
            "placed labels cover {placed} curve pieces or dots, level ones {level}"
        );
        assert_eq!(
            covered(&boxes[0], &room),
            0,
            "the tail's label is clear: {:?}",
            boxes[0]
        );
        for (i, rect) in boxes.iter().enumerate() {
            assert!(
                rect.left >= plot.left && rect.right <= plot.right,
                "{rect:?}"
            );
            assert!(
                rect.top >= plot.top && rect.bottom <= plot.bottom,
                "{rect:?}"
            );
            for other in &boxes[i + 1..] {
                assert!(!rect.overlaps(other, 0), "{rect:?} overlaps {other:?}");
            }
        }
        // Still in the dots' order, top to bottom, so each reads beside the right curve.
        assert!(boxes.windows(2).all(|w| w[0].top < w[1].top), "{boxes:?}");
    }

    #[test]
    fn a_label_crosses_curves_rather_than_cover_a_ring() {
        // Curves every 6 px but for a gap level with the dot, where a measured run's ring sits (the lab's "p50"
        // value was printed across it at light load, at a cost of one, under any spot crossing two curves).
        let curves: Vec<Segment> = (0..17)
            .map(|i| 6 * i)
            .filter(|y| !(40..=60).contains(y))
            .map(|y| ((0, y), (400, y)))
            .collect();
        let ring = Rect {
            left: 215,
            top: 42,
            right: 231,
            bottom: 58,
        };
        let room = Room {
            plot: Rect {
                left: 0,
                top: 0,
                right: 400,
                bottom: 100,
            },
            marker_x: 200,
            gap: 10,
            curves: &curves,
            dots: &[ring],
        };
        let boxes = place_labels(&[(50, 80, 15)], &room).unwrap();
        assert!(
            !boxes[0].overlaps(&ring, 0),
            "{:?} covers the ring",
            boxes[0]
        );
    }

    #[test]
    fn labels_over_two_rings_near_the_bottom_go_up_rather_than_cover_them() {
        // The lab at light load: four values near the bottom of the plot, the lowest two level with two measured
        // rings right of the marker. Placed from the top alone, the upper labels took the spots above the rings and
        // left the lower two only spots on them.
        let rings = [
            Rect {
                left: 170,
                top: 140,
                right: 190,
                bottom: 160,
            },
            Rect {
                left: 170,
                top: 160,
                right: 190,
                bottom: 180,
            },
        ];
        let room = Room {
            plot: Rect {
                left: 100,
                top: 0,
                right: 500,
                bottom: 190,
            },
            marker_x: 110,
            gap: 10,
            curves: &[],
            dots: &rings,
        };
        let labels = [(120, 90, 20), (135, 90, 20), (150, 90, 20), (165, 90, 20)];
        let boxes = place_labels(&labels, &room).unwrap();
        for rect in &boxes {
            assert!(
                rings.iter().all(|ring| !rect.overlaps(ring, 0)),
                "{rect:?} covers a ring"
            );
        }
        assert!(
            boxes.windows(2).all(|w| w[0].bottom < w[1].top),
            "{boxes:?}"
        );
    }

    #[test]
    fn labels_with_nowhere_clear_still_keep_apart_and_a_plot_too_short_gives_none() {
        // A curve across the whole plot every 10 px: no clear spot, but the labels never overlap.
        let curves: Vec<Segment> = (0..10).map(|i| ((0, 10 * i), (400, 10 * i + 5))).collect();
        let plot = Rect {
            left: 0,
            top: 0,
            right: 400,
            bottom: 100,
        };
        let room = Room {
            plot,
            marker_x: 200,
            gap: 5,
            curves: &curves,
            dots: &[],
        };
        let boxes = place_labels(&[(50, 80, 20), (50, 80, 20), (52, 80, 20)], &room).unwrap();
        assert!(!boxes[0].overlaps(&boxes[1], 0) && !boxes[1].overlaps(&boxes[2], 0));
        let short = Room {
            plot: Rect { bottom: 30, ..plot },
            ..room
        };
        assert_eq!(place_labels(&[(10, 80, 20); 3], &short), None);
    }

    #[test]
    fn a_segment_crosses_a_rectangle_only_where_it_passes_through() {
        let rect = Rect {
            left: 10,
            top: 10,
            right: 20,
            bottom: 20,
        };
        assert!(rect.crosses(((0, 0), (30, 30))));
        assert!(rect.crosses(((15, 15), (15, 16))));
        assert!(!rect.crosses(((0, 0), (30, 0))));
        assert!(!rect.crosses(((0, 30), (30, 25))));
    }
}
