//! Property test of a Deployment's rolling update over random replica counts,
//! `maxSurge` and `maxUnavailable` (numbers and percentages): at every etcd
//! write of the rollout the `ReplicaSets` ask for at most `replicas + maxSurge`
//! Pods, no more than that many exist that are not being deleted, and once
//! every replica was Ready no fewer than `replicas - maxUnavailable` are
//! (`pkg/controller/deployment/rolling.go`, `reconcileNewReplicaSet` and
//! `reconcileOldReplicaSets`).

use crate::common::{RolloutBounds, TempFile, of_kind, rollout_bounds, run};
use proptest::prelude::*;

/// `maxSurge` or `maxUnavailable` as a manifest gives it.
#[derive(Debug, Clone, Copy)]
enum Amount {
    Count(u32),
    Percent(u32),
}

impl Amount {
    /// As YAML: `2` or `"25%"`.
    fn yaml(self) -> String {
        match self {
            Amount::Count(n) => n.to_string(),
            Amount::Percent(p) => format!("\"{p}%\""),
        }
    }

    /// Whether the manifest says zero (validation refuses both at zero).
    fn is_zero(self) -> bool {
        matches!(self, Amount::Count(0) | Amount::Percent(0))
    }

    /// Of `replicas`, a percentage rounded up (surge) or down (unavailable),
    /// as `intstr.GetScaledValueFromIntOrPercent` is called by
    /// `deploymentutil.ResolveFenceposts`.
    fn of(self, replicas: u32, round_up: bool) -> u32 {
        match self {
            Amount::Count(n) => n,
            Amount::Percent(p) if round_up => (p * replicas).div_ceil(100),
            Amount::Percent(p) => p * replicas / 100,
        }
    }
}

/// `deploymentutil.ResolveFenceposts`: (surge, unavailable), with
/// unavailable made 1 when both come to 0, so that the rollout can move.
fn fenceposts(surge: Amount, unavailable: Amount, replicas: u32) -> (u32, u32) {
    let (s, u) = (surge.of(replicas, true), unavailable.of(replicas, false));
    if s == 0 && u == 0 { (0, 1) } else { (s, u) }
}

fn amount() -> impl Strategy<Value = Amount> {
    prop_oneof![
        (0..=3u32).prop_map(Amount::Count),
        prop::sample::select(vec![0u32, 10, 25, 50, 100]).prop_map(Amount::Percent),
    ]
}

fn deployment(replicas: u32, surge: Amount, unavailable: Amount, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  \
         replicas: {replicas}\n  strategy:\n    rollingUpdate: {{maxSurge: {}, maxUnavailable: {}}}\n  \
         selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    \
         spec:\n      containers:\n      - name: nginx\n        image: {image}\n",
        surge.yaml(),
        unavailable.yaml()
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_rolling_update_keeps_within_max_surge_and_max_unavailable(
        replicas in 1..=8u32,
        (surge, unavailable) in (amount(), amount())
            .prop_filter("maxSurge and maxUnavailable both 0 is invalid", |(s, u)| !(s.is_zero() && u.is_zero())),
    ) {
        let v1 = TempFile::new("web-v1", &deployment(replicas, surge, unavailable, "nginx:1.27"));
        let v2 = TempFile::new("web-v2", &deployment(replicas, surge, unavailable, "nginx:1.28"));
        let records = run(
            None,
            &[
                &format!("apply -f {}", v1.path()),
                "wait idle",
                &format!("apply -f {}", v2.path()),
            ],
            |_| {},
        );
        let (s, u) = fenceposts(surge, unavailable, replicas);
        let n = replicas as usize;
        let RolloutBounds { max_asked, max_live, min_ready } =
            rollout_bounds(&records, "default/web-", n);
        prop_assert!(max_asked <= i64::from(replicas + s), "asked for {max_asked} of {replicas} + {s}");
        prop_assert!(max_live <= n + s as usize, "{max_live} Pods live, {replicas} + {s} allowed");
        let floor = n.saturating_sub(u as usize);
        prop_assert!(min_ready.is_some_and(|m| m >= floor), "{min_ready:?} Ready, at least {floor} kept");
        let pods = of_kind(&records, "Pod");
        prop_assert_eq!(pods.len(), n);
        prop_assert!(pods.iter().all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.28"));
    }
}

/// The test's own fenceposts: the first two are upstream's
/// `TestResolveFenceposts` cases (`pkg/controller/deployment/util/deployment_util_test.go`),
/// the rest follow its rounding.
#[test]
fn fenceposts_round_surge_up_and_unavailable_down() {
    use Amount::{Count, Percent};
    assert_eq!(fenceposts(Percent(0), Percent(0), 0), (0, 1));
    assert_eq!(fenceposts(Percent(39), Percent(39), 10), (4, 3));
    assert_eq!(fenceposts(Percent(25), Percent(25), 1), (1, 0));
    assert_eq!(
        fenceposts(Count(0), Percent(10), 5),
        (0, 1),
        "0 rounded down, then 1"
    );
    assert_eq!(fenceposts(Count(2), Count(1), 6), (2, 1));
}
