//! `ValidateLeaseSpec` (`pkg/apis/coordination/validation/validation.go`):
//! a Lease's duration is positive, its transitions are not negative, and a
//! preferred holder needs a strategy.

use k8s_openapi::api::coordination::v1::Lease;

use super::field::{forbidden, invalid_raw, nonnegative, not_supported};
use podflow_model::status::FieldError;

/// The strategies Kubernetes defines (`validLeaseStrategies`).
const STRATEGIES: [&str; 1] = ["OldestEmulationVersion"];

/// `ValidateLeaseSpec`, for create and update alike.
pub fn validate_lease_spec(lease: &Lease, errs: &mut Vec<FieldError>) {
    let Some(spec) = &lease.spec else {
        return;
    };
    if let Some(seconds) = spec.lease_duration_seconds
        && seconds <= 0
    {
        errs.push(invalid_raw(
            "spec.leaseDurationSeconds",
            &seconds.to_string(),
            "must be greater than 0",
        ));
    }
    if let Some(transitions) = spec.lease_transitions {
        errs.extend(nonnegative("spec.leaseTransitions", i64::from(transitions)));
    }
    let strategy = spec.strategy.as_deref().unwrap_or_default();
    // A strategy with a `/` is a qualified name of the user's own; podflow
    // accepts those as written.
    if spec.strategy.is_some() && !strategy.contains('/') && !STRATEGIES.contains(&strategy) {
        errs.push(not_supported(
            "spec.strategy.strategy",
            strategy,
            &STRATEGIES,
        ));
    }
    if spec
        .preferred_holder
        .as_deref()
        .is_some_and(|h| !h.is_empty())
        && strategy.is_empty()
    {
        errs.push(forbidden(
            "spec.preferredHolder",
            "may only be specified if `strategy` is defined",
        ));
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::coordination::v1::LeaseSpec;

    use super::*;

    fn lease(spec: LeaseSpec) -> Lease {
        Lease {
            spec: Some(spec),
            ..Lease::default()
        }
    }

    /// Mirrors `TestValidateLeaseSpec` (`pkg/apis/coordination/validation/validation_test.go`).
    #[test]
    fn lease_spec_table() {
        let cases = [
            (
                "a node's lease",
                LeaseSpec {
                    holder_identity: Some("node-1".into()),
                    lease_duration_seconds: Some(40),
                    ..LeaseSpec::default()
                },
                vec![],
            ),
            (
                "zero duration",
                LeaseSpec {
                    lease_duration_seconds: Some(0),
                    ..LeaseSpec::default()
                },
                vec!["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"],
            ),
            (
                "negative transitions",
                LeaseSpec {
                    lease_transitions: Some(-1),
                    ..LeaseSpec::default()
                },
                vec![
                    "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
                ],
            ),
            (
                "preferred holder alone",
                LeaseSpec {
                    preferred_holder: Some("node-2".into()),
                    ..LeaseSpec::default()
                },
                vec![
                    "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
                ],
            ),
        ];
        for (name, spec, want) in cases {
            let mut errs = Vec::new();
            validate_lease_spec(&lease(spec), &mut errs);
            let got: Vec<String> = errs.iter().map(FieldError::message).collect();
            assert_eq!(got, want, "{name}");
        }
    }
}
