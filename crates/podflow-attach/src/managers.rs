//! Which `managedFields` entry a change wrote: the entries of the new
//! version that are new or changed (another time or field set) since the
//! old one, the latest of them. The API server's field manager stamps the
//! entry of the manager that wrote each update with the time of the write
//! (`staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/managedfieldsupdater.go`),
//! so the entry that changed names who did it.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

/// What is kept of one `managedFields` entry to compare versions: its
/// manager, operation, subresource, time and a hash of its field set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub manager: String,
    pub operation: String,
    pub subresource: String,
    pub time: String,
    pub fields: u64,
}

impl Stamp {
    /// The stamps of an object's `managedFields`.
    pub fn of(entries: &[ManagedFieldsEntry]) -> Vec<Stamp> {
        entries
            .iter()
            .map(|e| Stamp {
                manager: e.manager.clone().unwrap_or_default(),
                operation: e.operation.clone().unwrap_or_default(),
                subresource: e.subresource.clone().unwrap_or_default(),
                time: e.time.as_ref().map(|t| t.0.to_string()).unwrap_or_default(),
                fields: crate::fields::hash_of(
                    &e.fields_v1
                        .as_ref()
                        .map(|f| f.0.clone())
                        .unwrap_or_default(),
                ),
            })
            .collect()
    }
}

/// The entry that wrote the change from `old` to `new` (`old` `None` for an
/// object first seen): the latest of the new or changed entries; `None`
/// when no entry changed (a server that keeps no managed fields).
pub fn writer<'a>(old: Option<&[Stamp]>, new: &'a [Stamp]) -> Option<&'a Stamp> {
    let old = old.unwrap_or(&[]);
    new.iter()
        .filter(|stamp| !old.iter().any(|o| o == *stamp))
        .filter(|stamp| !stamp.manager.is_empty())
        // RFC 3339 times of one precision sort as text; the last listed wins a tie.
        .max_by(|a, b| a.time.cmp(&b.time))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(manager: &str, subresource: &str, time: &str, fields: u64) -> Stamp {
        Stamp {
            manager: manager.into(),
            operation: "Update".into(),
            subresource: subresource.into(),
            time: time.into(),
            fields,
        }
    }

    /// A Pod's life as a kind cluster writes its `managedFields`: created by
    /// the `ReplicaSet` controller, its `PodScheduled` condition by the
    /// scheduler, its status by the kubelet, then the kubelet again.
    #[test]
    fn the_changed_entry_names_the_writer() {
        let created = vec![stamp(
            "kube-controller-manager",
            "",
            "2026-12-05T10:00:00Z",
            1,
        )];
        assert_eq!(
            writer(None, &created).unwrap().manager,
            "kube-controller-manager"
        );

        let mut scheduled = created.clone();
        scheduled.push(stamp("kube-scheduler", "status", "2026-12-05T10:00:01Z", 2));
        assert_eq!(
            writer(Some(&created), &scheduled).unwrap().manager,
            "kube-scheduler"
        );

        let mut running = scheduled.clone();
        running.push(stamp("kubelet", "status", "2026-12-05T10:00:05Z", 3));
        assert_eq!(
            writer(Some(&scheduled), &running).unwrap().manager,
            "kubelet"
        );

        // The kubelet writes again: its entry's time (and fields) change.
        let mut ready = scheduled.clone();
        ready.push(stamp("kubelet", "status", "2026-12-05T10:00:09Z", 4));
        assert_eq!(writer(Some(&running), &ready).unwrap().manager, "kubelet");

        // kubectl apply of a new image over the controller's object.
        let mut applied = running.clone();
        applied.push(stamp(
            "kubectl-client-side-apply",
            "",
            "2026-12-05T10:01:00Z",
            5,
        ));
        let who = writer(Some(&running), &applied).unwrap();
        assert_eq!(
            (who.manager.as_str(), who.subresource.as_str()),
            ("kubectl-client-side-apply", "")
        );

        // Nothing changed, or no managed fields at all: nobody can be told.
        assert!(writer(Some(&running), &running).is_none());
        assert!(writer(None, &[]).is_none());
    }
}
