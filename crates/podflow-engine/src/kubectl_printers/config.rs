//! `kubectl get` rows for the configuration kinds
//! (`pkg/printers/internalversion/printers.go`): namespaces
//! (`printNamespace`), config maps, secrets, service accounts, leases, and
//! resource quotas (`printResourceQuota`: used/hard per resource, the
//! `limits.*` ones apart, AGE before them).

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::ResourceQuota;

use super::{age, header as header_row};
use crate::clock::SimTime;
use podflow_model::Object;
use podflow_model::quantity::ParsedQuantity;

/// The header of each kind's table (but the quota's), if this module prints it.
pub fn header(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "Namespace" => Some(&["NAME", "STATUS", "AGE"]),
        "ConfigMap" => Some(&["NAME", "DATA", "AGE"]),
        "Secret" => Some(&["NAME", "TYPE", "DATA", "AGE"]),
        "ServiceAccount" => Some(&["NAME", "SECRETS", "AGE"]),
        "Lease" => Some(&["NAME", "HOLDER", "AGE"]),
        _ => None,
    }
}

/// An object's cells but AGE.
pub fn cells(o: &Object) -> Vec<String> {
    let mut row = vec![o.name().to_owned()];
    match o {
        Object::Namespace(ns) => row.push(
            ns.status
                .as_ref()
                .and_then(|s| s.phase.clone())
                .unwrap_or_default(),
        ),
        Object::ConfigMap(cm) => {
            let count = cm.data.as_ref().map_or(0, BTreeMap::len)
                + cm.binary_data.as_ref().map_or(0, BTreeMap::len);
            row.push(count.to_string());
        }
        Object::Secret(secret) => {
            row.push(secret.type_.clone().unwrap_or_else(|| "Opaque".into()));
            row.push(secret.data.as_ref().map_or(0, BTreeMap::len).to_string());
        }
        Object::ServiceAccount(sa) => {
            row.push(sa.secrets.as_ref().map_or(0, Vec::len).to_string());
        }
        Object::Lease(lease) => row.push(
            lease
                .spec
                .as_ref()
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default(),
        ),
        _ => {}
    }
    row
}

/// The quota table: NAME, AGE, REQUEST, LIMIT.
pub fn resource_quota_rows(objects: &[Arc<Object>], now: SimTime) -> Vec<Vec<String>> {
    let mut rows = vec![header_row(&["NAME", "AGE", "REQUEST", "LIMIT"])];
    rows.extend(objects.iter().filter_map(|o| match &**o {
        Object::ResourceQuota(quota) => {
            let (request, limit) = quota_columns(quota);
            Some(vec![
                o.name().to_owned(),
                age(quota.metadata.creation_timestamp.as_ref(), now),
                request,
                limit,
            ])
        }
        _ => None,
    }));
    rows
}

/// `resource: used/hard` for each resource of `status.hard`, sorted by
/// name; those named `limits.*` go to the LIMIT column.
fn quota_columns(quota: &ResourceQuota) -> (String, String) {
    let status = quota.status.clone().unwrap_or_default();
    let hard = status.hard.unwrap_or_default();
    let used = status.used.unwrap_or_default();
    let (mut request, mut limit) = (Vec::new(), Vec::new());
    for (resource, hard) in &hard {
        let used = used
            .get(resource)
            .map_or_else(|| "0".to_owned(), |q| canonical(&q.0));
        let cell = format!("{resource}: {used}/{}", canonical(&hard.0));
        if resource.split('.').next() == Some("limits") && resource.contains('.') {
            limit.push(cell);
        } else {
            request.push(cell);
        }
    }
    (request.join(", "), limit.join(", "))
}

/// A quantity as `Quantity.String()` writes it (`1000m` → `1`).
fn canonical(quantity: &str) -> String {
    ParsedQuantity::parse(quantity).map_or_else(|_| quantity.to_owned(), |q| q.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_quota_prints_used_over_hard_with_limits_apart() {
        let quota = json!({"metadata": {"name": "compute"},
            "status": {"hard": {"pods": "2", "requests.cpu": "1", "limits.memory": "2Gi"},
                       "used": {"pods": "1", "requests.cpu": "500m"}}});
        let quota: ResourceQuota = serde_json::from_value(quota).unwrap();
        assert_eq!(
            quota_columns(&quota),
            (
                "pods: 1/2, requests.cpu: 500m/1".to_owned(),
                "limits.memory: 0/2Gi".to_owned()
            )
        );
    }
}
