//! The day's offered load: a piecewise-linear request rate, and the arrivals it makes (Poisson within it).
//!
//! `--traffic "0:5,600:30,900:30"` lists `time_s:requests_per_s` points; the rate is linear between two points,
//! constant after the last and before the first. Two points at the same time make a step (a spike starts at once).
//! Arrivals are a non-homogeneous Poisson process drawn by thinning (Lewis and Shedler): candidates at the peak rate,
//! each kept with probability rate(t) ÷ peak, which is exact for any rate curve under the peak.

use crate::sim::{stream, Stream};
use rand::Rng;
use rand_distr::Exp1;
use serde::{Deserialize, Serialize};

/// The stream the fleet's arrival candidates and their thinning draw from (the replica model's own streams are 1–14).
const ARRIVALS: u64 = 21;

/// Most points a traffic curve takes.
pub const MAX_TRAFFIC_POINTS: usize = 1000;
/// Highest rate a traffic point takes, requests per second.
pub const MAX_RATE: f64 = 100_000.0;

/// One point of the rate curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrafficPoint {
    /// Seconds from the start of the day.
    pub t: f64,
    /// Requests per second offered at `t`.
    pub rps: f64,
}

/// A piecewise-linear request rate over the day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    points: Vec<TrafficPoint>,
}

/// The named shapes the page offers, each a 30-minute day scaled by a per-replica rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The rate climbs from a trickle to four replicas' worth over twenty minutes, then holds.
    MorningRamp,
    /// Steady at 60% of one replica, then a step to 2.4 replicas' worth for five minutes, and back.
    LunchSpike,
    /// One and a half replicas' worth all day.
    Steady,
}

impl Shape {
    /// Every shape, in the page's order.
    pub const ALL: [Shape; 3] = [Shape::MorningRamp, Shape::LunchSpike, Shape::Steady];

    /// The shape's key (the page's and the URL's word).
    pub fn key(self) -> &'static str {
        match self {
            Shape::MorningRamp => "morning-ramp",
            Shape::LunchSpike => "lunch-spike",
            Shape::Steady => "steady",
        }
    }

    /// The shape's label.
    pub fn label(self) -> &'static str {
        match self {
            Shape::MorningRamp => "Morning ramp",
            Shape::LunchSpike => "Lunch spike",
            Shape::Steady => "Steady",
        }
    }

    /// The shape's curve when one replica serves at most `per_replica` requests per second.
    pub fn traffic(self, per_replica: f64) -> Traffic {
        let r = per_replica;
        let points: &[(f64, f64)] = match self {
            Shape::MorningRamp => &[(0.0, 0.2), (120.0, 0.2), (1320.0, 4.0)],
            Shape::LunchSpike => &[
                (0.0, 0.6),
                (600.0, 0.6),
                (600.0, 2.4),
                (900.0, 2.4),
                (900.0, 0.6),
            ],
            Shape::Steady => &[(0.0, 1.5)],
        };
        Traffic {
            points: points
                .iter()
                .map(|&(t, x)| TrafficPoint { t, rps: x * r })
                .collect(),
        }
    }
}

impl Traffic {
    /// A curve from its points, checked: at least one, times from 0 and never going back, rates from 0 to
    /// [`MAX_RATE`]. The error is one sentence naming the point (1-based).
    pub fn new(points: Vec<TrafficPoint>) -> Result<Traffic, String> {
        if points.is_empty() {
            return Err("needs at least one time_s:requests_per_s point".to_owned());
        }
        if points.len() > MAX_TRAFFIC_POINTS {
            return Err(format!("has more than {MAX_TRAFFIC_POINTS} points"));
        }
        let mut previous = 0.0;
        for (i, p) in points.iter().enumerate() {
            let n = i + 1;
            if !(p.t.is_finite() && p.t >= previous) {
                return Err(format!(
                    "point {n}: the time must be a finite number of seconds, 0 or more and no earlier than the \
                     point before ({previous})"
                ));
            }
            if !(p.rps.is_finite() && (0.0..=MAX_RATE).contains(&p.rps)) {
                return Err(format!(
                    "point {n}: the rate must be from 0 to {MAX_RATE} requests per second"
                ));
            }
            previous = p.t;
        }
        Ok(Traffic { points })
    }

    /// Reads `"T:R,T:R,…"` (seconds : requests per second), as `--traffic` takes it.
    pub fn parse(text: &str) -> Result<Traffic, String> {
        let points = text
            .split(',')
            .enumerate()
            .map(|(i, item)| {
                let bad = || {
                    format!(
                        "point {}: {:?} is not time_s:requests_per_s (e.g. 600:30)",
                        i + 1,
                        item.trim()
                    )
                };
                let (t, r) = item.split_once(':').ok_or_else(bad)?;
                let t = t.trim().parse::<f64>().map_err(|_| bad())?;
                let rps = r.trim().parse::<f64>().map_err(|_| bad())?;
                Ok(TrafficPoint { t, rps })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Traffic::new(points)
    }

    /// The points.
    pub fn points(&self) -> &[TrafficPoint] {
        &self.points
    }

    /// The rate at `t`, requests per second (after a step, the rate after it).
    pub fn rate(&self, t: f64) -> f64 {
        let p = &self.points;
        let after = p.partition_point(|x| x.t <= t);
        match after {
            0 => p[0].rps,
            n if n == p.len() => p[n - 1].rps,
            n => {
                let (a, b) = (p[n - 1], p[n]);
                a.rps + (b.rps - a.rps) * (t - a.t) / (b.t - a.t)
            }
        }
    }

    /// The highest rate anywhere.
    pub fn peak(&self) -> f64 {
        self.points.iter().map(|p| p.rps).fold(0.0, f64::max)
    }

    /// Requests expected from time 0 to `t`: the area under the curve.
    pub fn expected_by(&self, t: f64) -> f64 {
        let p = &self.points;
        let mut area = p[0].rps * p[0].t.min(t);
        for w in p.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a.t >= t {
                break;
            }
            let end = b.t.min(t);
            area += (a.rps + self.rate_between(a, b, end)) / 2.0 * (end - a.t);
        }
        let last = p[p.len() - 1];
        area + last.rps * (t - last.t).max(0.0)
    }

    fn rate_between(&self, a: TrafficPoint, b: TrafficPoint, t: f64) -> f64 {
        if b.t > a.t {
            a.rps + (b.rps - a.rps) * (t - a.t) / (b.t - a.t)
        } else {
            b.rps
        }
    }

    /// The mean rate from `from` to `to`.
    pub fn mean_rate(&self, from: f64, to: f64) -> f64 {
        if to > from {
            (self.expected_by(to) - self.expected_by(from)) / (to - from)
        } else {
            self.rate(from)
        }
    }

    /// The arrival times from 0 up to (not including) `seconds`, from `seed`. Each straight piece of the curve is
    /// thinned from its own highest rate, not the day's peak, so the draws number at most about twice the arrivals
    /// (a ramp's area is half its box): a one-millisecond spike no longer makes the whole week draw at its rate.
    pub fn arrivals(&self, seconds: f64, seed: u64) -> Vec<f64> {
        let mut rng: Stream = stream(seed, ARRIVALS);
        let mut times = Vec::with_capacity(self.expected_by(seconds).ceil() as usize + 16);
        for (from, to, peak) in self.pieces(seconds) {
            if peak <= 0.0 {
                continue;
            }
            let mut t = from;
            loop {
                t += rng.sample::<f64, _>(Exp1) / peak;
                if t >= to {
                    break;
                }
                if rng.random::<f64>() * peak < self.rate(t) {
                    times.push(t);
                }
            }
        }
        times
    }

    /// The straight pieces of the curve from 0 to `seconds`, each with the highest rate on it.
    fn pieces(&self, seconds: f64) -> Vec<(f64, f64, f64)> {
        let p = &self.points;
        let mut bounds = vec![(0.0, p[0].rps)];
        bounds.extend(
            p.iter()
                .filter(|x| x.t > 0.0 && x.t < seconds)
                .map(|x| (x.t, x.rps)),
        );
        bounds.push((seconds, self.rate(seconds)));
        bounds
            .windows(2)
            .filter(|w| w[1].0 > w[0].0)
            .map(|w| {
                let (from, to) = (w[0].0, w[1].0);
                // Both ends' rates from the curve itself, so a step at a piece's start counts the rate after it.
                let peak = self.rate(from).max(self.rate(to)).max(w[0].1).max(w[1].1);
                (from, to, peak)
            })
            .collect()
    }
}
