//! What ran beside each request of a timed trace, for its rows ([`super::observations::trace_rows`]): the decodes
//! running when its prefill ended, whether anything ran while it waited, whether another prefill shared its time,
//! and over its own decoding the batch's context and the prefills that finished. Each is a difference of running
//! sums found by binary search, so a whole trace takes O(n log n): scanning the others for each request was
//! quadratic whenever one request decoded for long or many ran at once (issue 42: 100,000 requests, 131 s).

use std::collections::VecDeque;

/// A request of a trace with both times, on the trace's clock.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timed {
    pub arrival: f64,
    pub first: f64,
    pub last: f64,
    pub prompt: f64,
    pub output: f64,
}

impl Timed {
    /// Its time per output token, when it decoded at all.
    pub fn tpot(&self) -> Option<f64> {
        (self.output > 1.0 && self.last > self.first)
            .then(|| (self.last - self.first) / (self.output - 1.0))
    }

    /// Its context while it decodes is `base + t × rate`: the prompt, the first token and one more every TPOT.
    fn context_line(&self, tpot: f64) -> (f64, f64) {
        (self.prompt + 1.0 - self.first / tpot, 1.0 / tpot)
    }
}

/// What ran beside a request's prefill.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct AtPrefill {
    /// Sequences decoding when its first token came (each weighted by the replica's share).
    pub decoding: f64,
    /// Their context then, in tokens.
    pub context: f64,
    /// Whether a request that started decoding before it still ran after it arrived.
    pub ran_beside: bool,
    /// Whether another request waited for or was in its prefill at the same time.
    pub contended: bool,
}

/// What ran beside a request's decoding, from its first token to its last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct OverDecode {
    /// The batch's context integrated over the decoding (its own at full weight), token-seconds.
    pub integral: f64,
    /// The decoding sequences integrated likewise, seconds.
    pub occupancy: f64,
    /// Prompt tokens computed by prefills that began in it.
    pub prefilled: f64,
    /// Those prefills' chunks.
    pub chunks: f64,
}

/// Running sums over decoding requests: how many, the sum of their context lines' bases and of their rates.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    count: f64,
    base: f64,
    rate: f64,
}

impl Sums {
    fn add(self, other: Self, sign: f64) -> Self {
        Self {
            count: self.count + sign * other.count,
            base: self.base + sign * other.base,
            rate: self.rate + sign * other.rate,
        }
    }
}

/// The decoding requests' context and count, as piecewise-linear functions of time, and their integrals from the
/// first event: after `time`, the context is `sums.base + t × sums.rate` and `sums.count` decode.
#[derive(Clone, Copy, Debug)]
struct Event {
    time: f64,
    integral: f64,
    occupancy: f64,
    sums: Sums,
}

/// The trace's sums, built once; then [`Beside::at_prefill`] for each request in order.
pub(super) struct Beside<'a> {
    /// Sorted by first token.
    timed: &'a [Timed],
    share: f64,
    longest: f64,
    /// `by_first[k]`: the sums over the decoding requests of `timed[..k]`.
    by_first: Vec<Sums>,
    /// The decoding requests' last tokens, sorted, and the sums over those up to each.
    lasts: Vec<f64>,
    by_last: Vec<Sums>,
    events: Vec<Event>,
    /// `prefills[k]`: prompt tokens computed and chunks of `timed[..k]`'s prefills.
    prefills: Vec<(f64, f64)>,
    /// `earliest_after[k]`: the earliest arrival among `timed[k..]`.
    earliest_after: Vec<f64>,
    /// `earliest_tied[k]`: the earliest arrival among the requests before `k` with the same first token.
    earliest_tied: Vec<f64>,
    /// The latest last token in `timed[from..at_my_first]` as `from` and `at_my_first` move on.
    window: LatestIn<'a>,
}

impl<'a> Beside<'a> {
    /// The sums of `timed`, sorted by first token, a replica's share of each request being `share`; `prefill` gives
    /// the tokens a prompt's prefill computes and its chunks.
    pub fn new(timed: &'a [Timed], share: f64, prefill: impl Fn(f64) -> (f64, f64)) -> Self {
        let longest = timed.iter().map(|t| t.last - t.first).fold(0.0, f64::max);
        let line = |t: &Timed| {
            t.tpot().map_or(Sums::default(), |tpot| {
                let (base, rate) = t.context_line(tpot);
                Sums {
                    count: 1.0,
                    base,
                    rate,
                }
            })
        };
        let by_first = prefix(timed.iter().map(line), Sums::default(), |s, x| {
            s.add(x, 1.0)
        });
        let mut decoders: Vec<&Timed> = timed.iter().filter(|t| t.tpot().is_some()).collect();
        decoders.sort_by(|a, b| a.last.total_cmp(&b.last));
        let lasts = decoders.iter().map(|t| t.last).collect();
        let by_last = prefix(decoders.iter().map(|t| line(t)), Sums::default(), |s, x| {
            s.add(x, 1.0)
        });
        let prefills = prefix(
            timed.iter().map(|t| prefill(t.prompt)),
            (0.0, 0.0),
            |s, x| (s.0 + x.0, s.1 + x.1),
        );
        let mut earliest_after = vec![f64::INFINITY; timed.len() + 1];
        for k in (0..timed.len()).rev() {
            earliest_after[k] = earliest_after[k + 1].min(timed[k].arrival);
        }
        let mut earliest_tied = vec![f64::INFINITY; timed.len()];
        for k in 1..timed.len() {
            if timed[k - 1].first == timed[k].first {
                earliest_tied[k] = earliest_tied[k - 1].min(timed[k - 1].arrival);
            }
        }
        Self {
            timed,
            share,
            longest,
            by_first,
            lasts,
            by_last,
            events: events(timed, line),
            prefills,
            earliest_after,
            earliest_tied,
            window: LatestIn::new(timed),
        }
    }

    /// Where the requests whose decoding could overlap `i`'s begin: first token no earlier than the longest
    /// decoding before `i`'s.
    fn from(&self, i: usize) -> usize {
        let me = &self.timed[i];
        self.timed
            .partition_point(|t| t.first < me.first - self.longest)
    }

    /// What ran beside request `i`'s prefill; `i` must not go back between calls.
    pub fn at_prefill(&mut self, i: usize) -> AtPrefill {
        let me = self.timed[i];
        let from = self.from(i);
        let at_my_first = self.timed.partition_point(|t| t.first < me.first);
        // Decoding when my first token came: started before it, not finished by it.
        let started = self.by_first[at_my_first];
        let finished = self.by_last[self.lasts.partition_point(|&last| last <= me.first)];
        let running = started.add(finished, -1.0);
        // First tokens in (my arrival, my first token): those requests arrived before mine came, and got theirs
        // after I arrived.
        let after_my_arrival = from.max(self.timed.partition_point(|t| t.first <= me.arrival));
        // First tokens at mine, before me in the list, or after it: those arrived before my first token.
        let tied = me.first > me.arrival && self.earliest_tied[i] < me.first;
        let contended =
            after_my_arrival < at_my_first || tied || self.earliest_after[i + 1] < me.first;
        AtPrefill {
            decoding: self.share * running.count,
            context: self.share * (running.base + me.first * running.rate),
            ran_beside: self.window.latest(from, at_my_first) > me.arrival,
            contended,
        }
    }

    /// What ran beside request `i`'s decoding, which has the time per token `tpot`.
    pub fn over_decode(&self, i: usize, tpot: f64) -> OverDecode {
        let me = &self.timed[i];
        let span = me.last - me.first;
        let (integral, occupancy) = {
            let (a, b) = (self.integrals_at(me.first), self.integrals_at(me.last));
            (b.0 - a.0, b.1 - a.1)
        };
        // Mine at full weight, the others at their share.
        let own_integral = span * (me.prompt + 1.0) + span * span / (2.0 * tpot);
        let began = self.timed.partition_point(|t| t.first <= me.first);
        let ended = self.timed.partition_point(|t| t.first < me.last);
        let (prefilled, chunks) = if ended > began {
            let (lo, hi) = (self.prefills[began], self.prefills[ended]);
            (self.share * (hi.0 - lo.0), self.share * (hi.1 - lo.1))
        } else {
            (0.0, 0.0)
        };
        OverDecode {
            integral: self.share * (integral - own_integral) + own_integral,
            occupancy: self.share * (occupancy - span) + span,
            prefilled,
            chunks,
        }
    }

    /// The integrals of the decoding requests' context and count up to `t`.
    fn integrals_at(&self, t: f64) -> (f64, f64) {
        let k = self.events.partition_point(|e| e.time <= t);
        let Some(e) = k.checked_sub(1).map(|k| &self.events[k]) else {
            return (0.0, 0.0);
        };
        let dt = t - e.time;
        (
            e.integral + dt * (e.sums.base + e.sums.rate * (e.time + t) / 2.0),
            e.occupancy + dt * e.sums.count,
        )
    }
}

/// `out[k]`: the fold of the first `k` items.
fn prefix<T: Copy>(items: impl Iterator<Item = T>, zero: T, add: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = vec![zero];
    for item in items {
        out.push(add(*out.last().expect("starts with zero"), item));
    }
    out
}

/// The decoding requests' starts and ends in time order, each with the integrals up to it.
fn events(timed: &[Timed], line: impl Fn(&Timed) -> Sums) -> Vec<Event> {
    let mut changes: Vec<(f64, Sums, f64)> = timed
        .iter()
        .filter(|t| t.tpot().is_some())
        .flat_map(|t| [(t.first, line(t), 1.0), (t.last, line(t), -1.0)])
        .collect();
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<Event> = Vec::with_capacity(changes.len());
    for (time, change, sign) in changes {
        let event = match out.last() {
            None => Event {
                time,
                integral: 0.0,
                occupancy: 0.0,
                sums: Sums::default(),
            },
            Some(e) => {
                let dt = time - e.time;
                Event {
                    time,
                    // The context is linear between events: the trapezoid is its exact integral.
                    integral: e.integral + dt * (e.sums.base + e.sums.rate * (e.time + time) / 2.0),
                    occupancy: e.occupancy + dt * e.sums.count,
                    sums: e.sums,
                }
            }
        };
        out.push(Event {
            sums: event.sums.add(change, sign),
            ..event
        });
    }
    out
}

/// The latest last token in a window of requests that only moves forward (a monotonic queue): each request enters
/// and leaves once.
struct LatestIn<'a> {
    timed: &'a [Timed],
    /// Indices in the window, their last tokens decreasing.
    queue: VecDeque<usize>,
    entered: usize,
}

impl<'a> LatestIn<'a> {
    fn new(timed: &'a [Timed]) -> Self {
        Self {
            timed,
            queue: VecDeque::new(),
            entered: 0,
        }
    }

    /// The latest last token of `timed[from..to]` (minus infinity when empty); neither end may go back.
    fn latest(&mut self, from: usize, to: usize) -> f64 {
        while self.entered < to {
            let last = self.timed[self.entered].last;
            while self
                .queue
                .back()
                .is_some_and(|&k| self.timed[k].last <= last)
            {
                self.queue.pop_back();
            }
            self.queue.push_back(self.entered);
            self.entered += 1;
        }
        while self.queue.front().is_some_and(|&k| k < from) {
            self.queue.pop_front();
        }
        self.queue
            .front()
            .map_or(f64::NEG_INFINITY, |&k| self.timed[k].last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A prefill's computed tokens (the prompt less a cached prefix of 10) and chunks of 256 tokens.
    fn prefill(prompt: f64) -> (f64, f64) {
        let computed = (prompt - 10.0).max(1.0);
        (computed, (computed / 256.0).ceil().max(1.0))
    }

    /// Every figure by scanning the others, as the rows were first built.
    fn by_scan(timed: &[Timed], share: f64, i: usize) -> (AtPrefill, OverDecode) {
        let me = &timed[i];
        let longest = timed.iter().map(|t| t.last - t.first).fold(0.0, f64::max);
        let from = timed.partition_point(|t| t.first < me.first - longest);
        let (mut decoding, mut context, mut ran_beside) = (0.0, 0.0, false);
        for other in timed[from..].iter().take_while(|o| o.first < me.first) {
            ran_beside |= other.last > me.arrival;
            if let (Some(tpot), true) = (other.tpot(), other.last > me.first) {
                decoding += share;
                context += share * (other.prompt + 1.0 + (me.first - other.first) / tpot);
            }
        }
        let contended = timed[from..]
            .iter()
            .enumerate()
            .any(|(j, o)| from + j != i && o.arrival < me.first && o.first > me.arrival);
        let (mut integral, mut occupancy, mut prefilled, mut chunks) = (0.0, 0.0, 0.0, 0.0);
        for (j, other) in timed[from..].iter().enumerate() {
            if other.first >= me.last {
                break;
            }
            let mine = from + j == i;
            let weight = if mine { 1.0 } else { share };
            if let Some(tpot) = other.tpot() {
                let (start, end) = (me.first.max(other.first), me.last.min(other.last));
                if end > start {
                    let (s, e) = (start - other.first, end - other.first);
                    integral += weight
                        * ((end - start) * (other.prompt + 1.0) + (e * e - s * s) / (2.0 * tpot));
                    occupancy += weight * (end - start);
                }
            }
            if !mine && other.first > me.first {
                prefilled += share * prefill(other.prompt).0;
                chunks += share * prefill(other.prompt).1;
            }
        }
        (
            AtPrefill {
                decoding,
                context,
                ran_beside,
                contended,
            },
            OverDecode {
                integral,
                occupancy,
                prefilled,
                chunks,
            },
        )
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn the_sums_find_what_the_scan_of_the_others_did() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(42);
        for _ in 0..300 {
            let n = rng.random_range(1..60);
            let mut timed: Vec<Timed> = (0..n)
                .map(|_| {
                    // Whole tenths, so that ties between first and last tokens happen.
                    let arrival = f64::from(rng.random_range(0..100)) / 10.0;
                    let first = arrival + f64::from(rng.random_range(0..20)) / 10.0;
                    Timed {
                        arrival,
                        first,
                        last: first + f64::from(rng.random_range(0..50)) / 10.0,
                        prompt: f64::from(rng.random_range(1..1000)),
                        output: f64::from(rng.random_range(1..200)),
                    }
                })
                .collect();
            timed.sort_by(|a, b| a.first.total_cmp(&b.first));
            let mut beside = Beside::new(&timed, 0.5, prefill);
            for (i, me) in timed.iter().enumerate() {
                let (at, over) = by_scan(&timed, 0.5, i);
                let found = beside.at_prefill(i);
                assert!(
                    close(found.decoding, at.decoding) && close(found.context, at.context),
                    "request {i}: {found:?} against {at:?} in {timed:?}"
                );
                assert_eq!(found.ran_beside, at.ran_beside, "request {i} of {timed:?}");
                // Only a TTFT above 0 is used, and only for it is "contended" worked out the short way.
                if me.first > me.arrival {
                    assert_eq!(found.contended, at.contended, "request {i} of {timed:?}");
                }
                if let Some(tpot) = me.tpot() {
                    let found = beside.over_decode(i, tpot);
                    for (a, b) in [
                        (found.integral, over.integral),
                        (found.occupancy, over.occupancy),
                        (found.prefilled, over.prefilled),
                        (found.chunks, over.chunks),
                    ] {
                        assert!(close(a, b), "request {i}: {found:?} against {over:?}");
                    }
                }
            }
        }
    }
}
