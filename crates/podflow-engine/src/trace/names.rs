//! The trace's fixed vocabulary: the name of each stage and the outcomes a
//! stage can have, as typed values. Views match on them exhaustively (a new
//! stage is a compile error in the narration, not a fallback); they are
//! written as the names docs/trace-format.md lists.

use std::fmt;

use serde::{Serialize, Serializer};

/// An enum of fixed names, each with its text, `Display`, `Serialize` as
/// that text, and `ALL` and `parse` for tests and readers.
macro_rules! trace_names {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every name, in declaration order.
            pub const ALL: &[$name] = &[$($name::$variant,)*];

            /// The name as the trace writes it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The name the trace writes as `text`.
            pub fn parse(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|name| name.as_str() == text)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

trace_names! {
    /// What a stage is, grouped by the component that runs it.
    StageName {
        // kube-apiserver, in the order a request meets them.
        Decode = "decode",
        Authentication = "authentication",
        Authorization = "authorization",
        Admission = "admission",
        Validation = "validation",
        // etcd.
        Persist = "persist",
        Compact = "compact",
        // kube-scheduler: the queue, then the scheduling and binding cycles.
        Queue = "queue",
        PreFilter = "prefilter",
        Filter = "filter",
        PostFilter = "postfilter",
        PreScore = "prescore",
        Score = "score",
        Select = "select",
        Reserve = "reserve",
        Permit = "permit",
        PreBind = "prebind",
        Bind = "bind",
        // kube-controller-manager (its work queue is also `Queue`).
        Informer = "informer",
        Sync = "sync",
        // A node: the kubelet, and its CNI plugin's `Network`.
        Sandbox = "sandbox",
        Network = "network",
        Volume = "volume",
        Pull = "pull",
        Container = "container",
        Probe = "probe",
        Status = "status",
        /// The node cut off from the control plane, or back (`fault node`).
        Fault = "fault",
        // A node's kube-proxy: a sync of its rules, and a connection through them.
        SyncProxyRules = "sync-proxy-rules",
        Connect = "connect",
    }
}

trace_names! {
    /// How a stage ended.
    Outcome {
        // The API server's steps.
        Allow = "allow",
        Mutate = "mutate",
        Deny = "deny",
        // etcd.
        Ok = "ok",
        Skip = "skip",
        Delete = "delete",
        // The scheduler.
        Pass = "pass",
        Fail = "fail",
        Scored = "scored",
        Selected = "selected",
        Unschedulable = "unschedulable",
        Nominated = "nominated",
        Active = "active",
        Backoff = "backoff",
        Request = "request",
        Waiting = "waiting",
        // The controller manager's informers, work queue and syncs.
        Added = "added",
        Modified = "modified",
        Deleted = "deleted",
        Processing = "processing",
        Requeued = "requeued",
        Create = "create",
        Update = "update",
        Write = "write",
        Done = "done",
        Gone = "gone",
        InSync = "in-sync",
        Provision = "provision",
        Bind = "bind",
        Finalize = "finalize",
        Keep = "keep",
        Orphan = "orphan",
        Unblock = "unblock",
        Taint = "taint",
        Unknown = "unknown",
        Scheduled = "scheduled",
        Status = "status",
        // A node's fault.
        Partitioned = "partitioned",
        Recovered = "recovered",
        // The kubelet.
        Ready = "ready",
        Mounted = "mounted",
        Failed = "failed",
        Pulled = "pulled",
        Present = "present",
        Never = "never",
        Started = "started",
        Exited = "exited",
        Killing = "killing",
        ConfigError = "config-error",
        Hook = "hook",
        HookFailed = "hook-failed",
        Success = "success",
        Failure = "failure",
        Unready = "unready",
        Terminated = "terminated",
        Pending = "pending",
        Running = "running",
        Succeeded = "succeeded",
        // A connection through kube-proxy's rules.
        Dnat = "dnat",
        Reject = "reject",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_read_back() {
        for names in [
            StageName::ALL
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>(),
            Outcome::ALL.iter().map(|n| n.as_str()).collect(),
        ] {
            let distinct: std::collections::BTreeSet<_> = names.iter().collect();
            assert_eq!(distinct.len(), names.len(), "{names:?}");
        }
        for &name in StageName::ALL {
            assert_eq!(StageName::parse(name.as_str()), Some(name));
            assert_eq!(serde_json::to_string(&name).unwrap(), format!("\"{name}\""));
        }
        for &outcome in Outcome::ALL {
            assert_eq!(Outcome::parse(outcome.as_str()), Some(outcome));
        }
        assert_eq!(Outcome::InSync.to_string(), "in-sync");
    }
}
