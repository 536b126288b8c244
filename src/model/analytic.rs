//! Exact results to draw beside the simulation: Erlang C for the open M/M/c queue and exact Mean Value Analysis
//! for the closed loop (N users with exponential think time in front of a c-server station).

use super::scenario::{Arrivals, Scenario, ServiceKind, POISSON_CV};
use serde::{Deserialize, Serialize};

/// The open M/M/c queue in steady state (`ρ < 1`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErlangC {
    /// Number of servers c.
    pub servers: u32,
    /// Arrival rate λ.
    pub arrival_rate: f64,
    /// Service rate μ of one server.
    pub service_rate: f64,
    /// Offered load ρ = λ / (cμ).
    pub offered_load: f64,
    /// Erlang C: probability an arrival has to wait.
    pub wait_probability: f64,
    /// Mean wait in queue `E[Wq] = C / (cμ − λ)`.
    pub mean_wait: f64,
    /// Mean sojourn (wait plus service) `E[T] = E[Wq] + 1/μ`.
    pub mean_sojourn: f64,
    /// Mean number in system `L = λ·E[T]` (Little's Law).
    pub mean_in_system: f64,
}

/// Erlang C for `servers` servers, arrival rate λ and per-server service rate μ; `None` unless `0 < λ < cμ` and every
/// input is finite and positive.
///
/// Computed with the Erlang B recursion `B(k) = a·B(k−1) / (k + a·B(k−1))`, then `C = c·B / (c − a·(1 − B))`, which
/// never forms a factorial or a power and stays accurate for thousands of servers.
pub fn erlang_c(servers: u32, arrival_rate: f64, service_rate: f64) -> Option<ErlangC> {
    let c = f64::from(servers);
    let valid =
        servers > 0 && arrival_rate.is_finite() && service_rate.is_finite() && service_rate > 0.0;
    if !valid || arrival_rate <= 0.0 || arrival_rate >= c * service_rate {
        return None;
    }
    let a = arrival_rate / service_rate;
    let mut b = 1.0;
    for k in 1..=servers {
        b = a * b / (f64::from(k) + a * b);
    }
    let wait_probability = c * b / (c - a * (1.0 - b));
    let mean_wait = wait_probability / (c * service_rate - arrival_rate);
    let mean_sojourn = mean_wait + 1.0 / service_rate;
    Some(ErlangC {
        servers,
        arrival_rate,
        service_rate,
        offered_load: a / c,
        wait_probability,
        mean_wait,
        mean_sojourn,
        mean_in_system: arrival_rate * mean_sojourn,
    })
}

impl ErlangC {
    fn theta(&self) -> f64 {
        f64::from(self.servers) * self.service_rate - self.arrival_rate
    }

    /// `P(Wq > t) = C·e^{−(cμ−λ)t}`.
    pub fn wait_tail(&self, t: f64) -> f64 {
        if t < 0.0 {
            1.0
        } else {
            self.wait_probability * (-self.theta() * t).exp()
        }
    }

    /// The `p`-quantile of the wait: `ln(C/(1−p)) / (cμ−λ)` when `C > 1−p`, else 0.
    pub fn wait_quantile(&self, p: f64) -> f64 {
        let tail = 1.0 - p.clamp(0.0, 1.0 - 1e-15);
        if self.wait_probability > tail {
            (self.wait_probability / tail).ln() / self.theta()
        } else {
            0.0
        }
    }

    /// `P(T > t)` for the sojourn (wait plus own service):
    /// `e^{−μt} + C·μ/(θ−μ)·(e^{−μt} − e^{−θt})` with `θ = cμ − λ`, or `e^{−μt}(1 + Cμt)` when `θ = μ`.
    pub fn sojourn_tail(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 1.0;
        }
        let (mu, theta, c) = (self.service_rate, self.theta(), self.wait_probability);
        let em = (-mu * t).exp();
        if ((theta - mu) / mu).abs() < 1e-9 {
            em * (1.0 + c * mu * t)
        } else {
            em + c * mu / (theta - mu) * (em - (-theta * t).exp())
        }
    }

    /// The `p`-quantile of the sojourn, by bisection on [`sojourn_tail`](Self::sojourn_tail) (relative precision
    /// 1e-10).
    pub fn sojourn_quantile(&self, p: f64) -> f64 {
        let tail = 1.0 - p.clamp(0.0, 1.0 - 1e-15);
        let mut hi = 1.0 / self.service_rate;
        while self.sojourn_tail(hi) > tail {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if self.sojourn_tail(mid) > tail {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-10 * hi {
                break;
            }
        }
        (lo + hi) / 2.0
    }

    /// Stationary probabilities `P(n in system)` for `n = 0..len`, computed with ratios (no factorials).
    pub fn stationary_probabilities(&self, len: usize) -> Vec<f64> {
        let c = self.servers as usize;
        let a = self.arrival_rate / self.service_rate;
        let rho = self.offered_load;
        // Unnormalised terms relative to the n = c term, built backwards and forwards from it to avoid overflow.
        let mut below = vec![1.0; c + 1];
        for n in (0..c).rev() {
            below[n] = below[n + 1] * (n + 1) as f64 / a;
        }
        let norm: f64 = below[..c].iter().sum::<f64>() + 1.0 / (1.0 - rho);
        (0..len)
            .map(|n| {
                if n <= c {
                    below[n] / norm
                } else {
                    rho.powi((n - c) as i32) / norm
                }
            })
            .collect()
    }
}

/// Exact closed-loop figures for one population.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mva {
    /// Number of users N.
    pub users: u32,
    /// Throughput X (requests per time unit).
    pub throughput: f64,
    /// Mean response time at the station `R = N/X − Z`.
    pub response_time: f64,
    /// Mean number at the station (queued or in service) `X·R`.
    pub mean_at_station: f64,
}

/// Exact Mean Value Analysis of `users` users with mean think time `think_time` in front of a station of `servers`
/// exponential servers of rate `service_rate` (a load-dependent station: rate `μ·min(j, c)` with `j` present).
///
/// Marginal-probability MVA: for `n = 1..N`, `R(n) = Σ_j j/(μ·min(j,c)) · p(j−1 | n−1)`, `X(n) = n/(Z + R(n))`,
/// `p(j | n) = X(n)/(μ·min(j,c)) · p(j−1 | n−1)` and `p(0 | n) = 1 − Σ_{j≥1} p(j | n)` (clamped at 0 against
/// rounding). Cost O(N²) time, O(N) memory. Returns `None` for invalid inputs.
pub fn mva(servers: u32, service_rate: f64, think_time: f64, users: u32) -> Option<Mva> {
    let ok = servers > 0 && users > 0 && service_rate.is_finite() && service_rate > 0.0;
    if !ok || !think_time.is_finite() || think_time < 0.0 {
        return None;
    }
    let n_max = users as usize;
    let rate = |j: usize| service_rate * j.min(servers as usize) as f64;
    let mut p = vec![0.0; n_max + 1];
    let mut next = vec![0.0; n_max + 1];
    p[0] = 1.0;
    let (mut x, mut r) = (0.0, 0.0);
    for n in 1..=n_max {
        r = (1..=n).map(|j| j as f64 / rate(j) * p[j - 1]).sum::<f64>();
        x = n as f64 / (think_time + r);
        let mut total = 0.0;
        for j in 1..=n {
            next[j] = x / rate(j) * p[j - 1];
            total += next[j];
        }
        next[0] = (1.0 - total).max(0.0);
        std::mem::swap(&mut p, &mut next);
    }
    Some(Mva {
        users,
        throughput: x,
        response_time: r,
        mean_at_station: x * r,
    })
}

/// The exact figures matching a textbook scenario, for drawing beside the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactReference {
    /// Throughput (requests per time unit).
    pub throughput: f64,
    /// Mean wait in queue.
    pub mean_wait: f64,
    /// Mean sojourn / response time.
    pub mean_sojourn: f64,
    /// Mean number in system (for closed loop: at the station).
    pub mean_in_system: f64,
    /// p50 and p99 of the wait (open loop only).
    pub wait_p50_p99: Option<(f64, f64)>,
    /// p50 and p99 of the sojourn (open loop only).
    pub sojourn_p50_p99: Option<(f64, f64)>,
}

/// Exact figures for a textbook scenario: Erlang C in open loop (`None` at ρ ≥ 1), MVA in closed loop. `None` for
/// the LLM mode, and for open-loop gaps that are not Poisson (CV ≠ 1), which have no closed form here.
pub fn exact_reference(scenario: &Scenario) -> Option<ExactReference> {
    let ServiceKind::Textbook(t) = &scenario.service else {
        return None;
    };
    let mu = 1.0 / t.mean_service;
    match scenario.arrivals {
        Arrivals::Open { offered_load, cv } => {
            if cv != POISSON_CV {
                return None;
            }
            let e = erlang_c(t.servers, offered_load * f64::from(t.servers) * mu, mu)?;
            Some(ExactReference {
                throughput: e.arrival_rate,
                mean_wait: e.mean_wait,
                mean_sojourn: e.mean_sojourn,
                mean_in_system: e.mean_in_system,
                wait_p50_p99: Some((e.wait_quantile(0.5), e.wait_quantile(0.99))),
                sojourn_p50_p99: Some((e.sojourn_quantile(0.5), e.sojourn_quantile(0.99))),
            })
        }
        Arrivals::Closed { users, think_time } => {
            let m = mva(t.servers, mu, think_time, users)?;
            Some(ExactReference {
                throughput: m.throughput,
                mean_wait: (m.response_time - t.mean_service).max(0.0),
                mean_sojourn: m.response_time,
                mean_in_system: m.mean_at_station,
                wait_p50_p99: None,
                sojourn_p50_p99: None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    /// Erlang C by its textbook closed form, with factorials (Kleinrock, *Queueing Systems* vol. 1, 1975, eq. 3.40;
    /// Gross & Harris, *Fundamentals of Queueing Theory*, §2.3): independent of the iterative form under test.
    fn erlang_c_by_factorials(c: u32, a: f64) -> f64 {
        let factorial = |n: u32| (1..=n).map(f64::from).product::<f64>();
        let queued = a.powi(c as i32) / factorial(c) * f64::from(c) / (f64::from(c) - a);
        let idle: f64 = (0..c).map(|k| a.powi(k as i32) / factorial(k)).sum();
        queued / (idle + queued)
    }

    #[test]
    fn erlang_c_matches_its_closed_form_and_exact_tails() {
        // (c, ρ, p99 T) with μ = 1. P(wait), E[Wq] = C/(cμ − λ) and the p99 wait ln(C/0.01)/(cμ − λ) are derived
        // here from the closed form. The p99 sojourn solves e^{−μt} + C·μ/(θ−μ)·(e^{−μt} − e^{−θt}) = 0.01 with
        // θ = cμ − λ (Gross & Harris §2.3.2), solved by bisection outside this code base (a dozen lines of Python in
        // double precision); for c = 1 the sojourn is exponential with rate μ − λ: p99 T = ln(100)/0.1 = 46.052.
        for (c, rho, p99t) in [(1, 0.90, 46.052), (4, 0.85, 8.559), (8, 0.95, 12.366)] {
            let a = rho * f64::from(c);
            let e = erlang_c(c, a, 1.0).unwrap();
            let wait_probability = erlang_c_by_factorials(c, a);
            let theta = f64::from(c) - a;
            assert!(
                close(e.wait_probability, wait_probability, 1e-9),
                "c={c}: {}",
                e.wait_probability
            );
            assert!(
                close(e.mean_wait, wait_probability / theta, 1e-9),
                "c={c}: {}",
                e.mean_wait
            );
            let p99_wait = (wait_probability / 0.01).ln() / theta;
            assert!(
                close(e.wait_quantile(0.99), p99_wait, 1e-6),
                "c={c}: {}",
                e.wait_quantile(0.99)
            );
            assert!(
                close(e.sojourn_quantile(0.99), p99t, 1e-3),
                "c={c}: {}",
                e.sojourn_quantile(0.99)
            );
        }
    }

    #[test]
    fn erlang_c_is_none_when_unstable_or_invalid() {
        assert!(erlang_c(4, 4.0, 1.0).is_none());
        assert!(erlang_c(0, 0.5, 1.0).is_none());
        assert!(erlang_c(1, f64::NAN, 1.0).is_none());
    }

    #[test]
    fn stationary_probabilities_sum_to_one_and_give_the_wait_probability() {
        let e = erlang_c(8, 7.6, 1.0).unwrap();
        let p = e.stationary_probabilities(5000);
        assert!(close(p.iter().sum::<f64>(), 1.0, 1e-9));
        assert!(close(p[8..].iter().sum::<f64>(), e.wait_probability, 1e-9));
    }

    #[test]
    fn mva_matches_the_reference_examples() {
        let m = mva(4, 1.0, 4.0, 8).unwrap();
        assert!(
            close(m.throughput, 1.597, 1e-3) && close(m.response_time, 1.010, 1e-3),
            "{m:?}"
        );
        let m = mva(4, 1.0, 4.0, 64).unwrap();
        assert!(
            close(m.throughput, 4.000, 1e-3) && close(m.response_time, 12.0, 1e-3),
            "{m:?}"
        );
    }

    #[test]
    fn mva_agrees_with_the_product_form_machine_repair_model() {
        // Finite-source M/M/c//N: P(n) ∝ N!/(N−n)! · (1/(Zμ))^n / β(n), β(n) = n! (n ≤ c) or c!·c^(n−c).
        let (c, z, n_users) = (3u32, 2.5, 40u32);
        let mut terms = vec![1.0f64];
        for n in 1..=n_users {
            let prev = terms[(n - 1) as usize];
            terms.push(prev * f64::from(n_users - n + 1) / (z * f64::from(n.min(c))));
        }
        let norm: f64 = terms.iter().sum();
        let x: f64 = terms
            .iter()
            .enumerate()
            .map(|(n, t)| t / norm * (n as f64).min(f64::from(c)))
            .sum();
        let m = mva(c, 1.0, z, n_users).unwrap();
        assert!(close(m.throughput, x, 1e-9), "{} vs {x}", m.throughput);
    }
}
