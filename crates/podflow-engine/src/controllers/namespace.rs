//! The namespace controller (`pkg/controller/namespace/namespace_controller.go`,
//! `deletion/namespaced_resources_deleter.go`): a namespace being deleted
//! is looked at 5 s after each change (`namespaceDeletionGracePeriod`); a
//! pass GETs it, then empties it one resource after another — for Pods a LIST
//! to estimate their grace, then a LIST, a DELETE of each object
//! (`propagationPolicy: Background`), and a LIST to see what remains — writes
//! its deletion conditions through `namespaces/status` when they changed,
//! and, once nothing remains, takes its `kubernetes` finalizer out through
//! `namespaces/finalize`, which deletes it. Content that is still going
//! brings the namespace back after half its estimate plus a second
//! (`ResourcesRemainingError`); a failure after the rate limiter's delay
//! (5 ms doubling to 60 s, `nsControllerRateLimiter`).
//!
//! Simplified: discovery is podflow's own list of kinds, asked nothing
//! ([`super::namespace_plan::resources`]); the API server serves no
//! `deletecollection`, so every resource takes upstream's `deleteEachItem`
//! path; Events stay (they are not in etcd).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use k8s_openapi::api::core::v1::Namespace;

use super::informer::InformerDelta;
use super::namespace_plan::{self as plan, DELETION_GRACE_PERIOD_MS, MAX_RETRY_DELAY_MS, Totals};
use super::workqueue::WorkQueue;
use super::{Controller, Informers, Progress, sync_stage};
use crate::apiserver::handler::Response;
use crate::apiserver::namespace_strategy::FINALIZER_KUBERNETES;
use crate::apiserver::request::{Body, Propagation, Request, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::kinds::kind_of;
use podflow_model::{Kind, Object};

/// The controller's service account.
pub const NAME: &str = "namespace-controller";

/// What an answer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Get,
    Estimate,
    List,
    Delete,
    Verify,
    Status,
    Finalize,
    /// `retryOnConflictError`: the latest namespace, after a conflict.
    Refetch,
}

/// One pass over a namespace being deleted.
#[derive(Debug, Clone)]
struct Pass {
    namespace: Arc<Namespace>,
    /// The deletion timestamp, in milliseconds since the Unix epoch.
    deleted_at_ms: i64,
    /// The resources still to empty, the current one first.
    kinds: VecDeque<&'static Kind>,
    /// The current resource's objects still to delete.
    to_delete: VecDeque<String>,
    /// The current resource's own estimate (Pods' grace), in seconds.
    kind_estimate: i64,
    /// The longest estimate so far, in seconds.
    estimate: i64,
    totals: Totals,
}

/// The controller's state.
#[derive(Debug, Clone)]
pub struct NamespaceController {
    queue: WorkQueue,
    inflight: BTreeMap<RequestId, (String, Step)>,
    passes: BTreeMap<String, Pass>,
}

impl Default for NamespaceController {
    fn default() -> NamespaceController {
        NamespaceController {
            queue: WorkQueue::with_max_delay(MAX_RETRY_DELAY_MS),
            inflight: BTreeMap::new(),
            passes: BTreeMap::new(),
        }
    }
}

fn deleting(ns: &Namespace) -> bool {
    ns.metadata.deletion_timestamp.is_some()
}

fn request(verb: Verb, kind: &'static Kind, namespace: Option<&str>, name: &str) -> Request {
    super::client::request(NAME, verb, kind, namespace, name)
}

impl NamespaceController {
    fn send(&mut self, key: &str, step: Step, request: Request, cx: &mut Cx<'_>) -> Progress {
        let id = cx.send(request);
        self.inflight.insert(id, (key.to_owned(), step));
        Progress::Waiting
    }

    /// The next resource to empty, or the conditions once all are done.
    fn next_kind(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(pass) = self.passes.get_mut(key) else {
            return Progress::Done;
        };
        let Some(&kind) = pass.kinds.front() else {
            return self.write_conditions(key, cx);
        };
        pass.kind_estimate = 0;
        let step = if kind.kind == "Pod" {
            Step::Estimate
        } else {
            Step::List
        };
        self.send(key, step, request(Verb::List, kind, Some(key), ""), cx)
    }

    /// The current resource's next DELETE, or its check once all are sent.
    fn next_delete(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(pass) = self.passes.get_mut(key) else {
            return Progress::Done;
        };
        let Some(&kind) = pass.kinds.front() else {
            return Progress::Done;
        };
        match pass.to_delete.pop_front() {
            Some(name) => {
                let req = request(Verb::Delete, kind, Some(key), &name)
                    .propagation(Propagation::Background);
                self.send(key, Step::Delete, req, cx)
            }
            None => self.send(
                key,
                Step::Verify,
                request(Verb::List, kind, Some(key), ""),
                cx,
            ),
        }
    }

    /// The current resource is done with: on to the next.
    fn kind_done(&mut self, key: &str, found: &plan::Remaining, cx: &mut Cx<'_>) -> Progress {
        let Some(pass) = self.passes.get_mut(key) else {
            return Progress::Done;
        };
        if let Some(kind) = pass.kinds.pop_front() {
            pass.totals.add(kind, found);
        }
        pass.estimate = pass.estimate.max(found.estimate);
        self.next_kind(key, cx)
    }

    /// `conditionUpdater.Update`: the conditions, written when they changed.
    fn write_conditions(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(pass) = self.passes.get(key) else {
            return Progress::Done;
        };
        let mut ns = (*pass.namespace).clone();
        let status = ns.status.get_or_insert_with(Default::default);
        if !plan::update_conditions(status, &pass.totals, cx.now) {
            return self.after_content(key, cx);
        }
        sync_stage(
            NAME,
            Outcome::Status,
            format!("{key}: deletion conditions changed"),
            cx,
        );
        let req = request(Verb::Update, kind_of("Namespace"), None, key)
            .subresource("status")
            .body(Body::Object(Box::new(Object::Namespace(ns))));
        self.send(key, Step::Status, req, cx)
    }

    /// After the content: a failure, content still going, or the finalizer's removal.
    fn after_content(&mut self, key: &str, cx: &mut Cx<'_>) -> Progress {
        let Some(pass) = self.passes.get(key) else {
            return Progress::Done;
        };
        if let Some(first) = pass.totals.errors.first() {
            let error = first.clone();
            self.passes.remove(key);
            return Progress::Failed(error);
        }
        if pass.estimate > 0 {
            // `ResourcesRemainingError`: again after half the estimate and a second.
            let seconds = pass.estimate / 2 + 1;
            sync_stage(
                NAME,
                Outcome::Waiting,
                format!("{key}: content remaining; looked at again in {seconds} s"),
                cx,
            );
            self.passes.remove(key);
            let ms = u64::try_from(seconds).unwrap_or(0) * 1000;
            self.queue.add_after(key, ms, cx.now);
            return Progress::Deferred;
        }
        let ns = Arc::clone(&pass.namespace);
        sync_stage(
            NAME,
            Outcome::Finalize,
            format!("{key}: all content removed; removing the {FINALIZER_KUBERNETES} finalizer"),
            cx,
        );
        self.finalize(key, &ns, cx)
    }

    /// `finalizeNamespace`: every finalizer but this controller's.
    fn finalize(&mut self, key: &str, ns: &Namespace, cx: &mut Cx<'_>) -> Progress {
        let mut ns = ns.clone();
        if let Some(spec) = ns.spec.as_mut() {
            spec.finalizers = spec.finalizers.take().map(|f| {
                f.into_iter()
                    .filter(|f| f != FINALIZER_KUBERNETES)
                    .collect()
            });
        }
        let req = request(Verb::Update, kind_of("Namespace"), None, key)
            .subresource("finalize")
            .body(Body::Object(Box::new(Object::Namespace(ns))));
        self.send(key, Step::Finalize, req, cx)
    }

    fn on_get(&mut self, key: &str, response: &Response, cx: &mut Cx<'_>) -> Progress {
        let fresh = response
            .object
            .as_deref()
            .and_then(|o| o.get::<Namespace>())
            .filter(|_| response.code < 300);
        let Some(ns) = fresh else {
            // Gone already: nothing to do (`errors.IsNotFound`).
            return if response.code == 404 {
                Progress::Done
            } else {
                Progress::Failed(response.message())
            };
        };
        let finalized = !ns
            .spec
            .as_ref()
            .and_then(|s| s.finalizers.as_ref())
            .is_some_and(|f| f.iter().any(|f| f == FINALIZER_KUBERNETES));
        if !deleting(ns) || finalized {
            return Progress::Done;
        }
        let deleted_at_ms = ns.metadata.deletion_timestamp.as_ref().map_or_else(
            || cx.now.to_k8s().as_millisecond(),
            |t| t.0.as_millisecond(),
        );
        let kinds: VecDeque<&'static Kind> = plan::resources().collect();
        sync_stage(
            NAME,
            Outcome::Delete,
            format!("{key}: deleting the content of {} resources", kinds.len()),
            cx,
        );
        self.passes.insert(
            key.to_owned(),
            Pass {
                namespace: Arc::new(ns.clone()),
                deleted_at_ms,
                kinds,
                to_delete: VecDeque::new(),
                kind_estimate: 0,
                estimate: 0,
                totals: Totals::default(),
            },
        );
        self.next_kind(key, cx)
    }

    fn on_list(&mut self, key: &str, step: Step, response: &Response, cx: &mut Cx<'_>) -> Progress {
        let now_ms = cx.now.to_k8s().as_millisecond();
        let Some(pass) = self.passes.get_mut(key) else {
            return Progress::Done;
        };
        let Some(&kind) = pass.kinds.front() else {
            return Progress::Done;
        };
        if response.code >= 300 {
            // The resource's error is kept, and the pass goes on with the others.
            let found = plan::Remaining {
                error: Some(response.message()),
                estimate: pass.kind_estimate,
                ..plan::Remaining::default()
            };
            return self.kind_done(key, &found, cx);
        }
        match step {
            Step::Estimate => {
                let elapsed = u64::try_from(now_ms - pass.deleted_at_ms).unwrap_or(0);
                pass.kind_estimate = plan::pods_estimate(&response.items, elapsed);
                self.send(
                    key,
                    Step::List,
                    request(Verb::List, kind, Some(key), ""),
                    cx,
                )
            }
            Step::List => {
                pass.to_delete = response.items.iter().map(|o| o.name().to_owned()).collect();
                self.next_delete(key, cx)
            }
            _ => {
                let found = plan::remaining(kind, key, &response.items, pass.kind_estimate);
                self.kind_done(key, &found, cx)
            }
        }
    }

    fn on_delete(&mut self, key: &str, response: &Response, cx: &mut Cx<'_>) -> Progress {
        if response.code < 300 || response.code == 404 || response.code == 405 {
            return self.next_delete(key, cx);
        }
        // `deleteEachItem` stops at the first failure; the resource is not checked.
        let Some(pass) = self.passes.get_mut(key) else {
            return Progress::Done;
        };
        pass.to_delete.clear();
        let found = plan::Remaining {
            error: Some(response.message()),
            estimate: pass.kind_estimate,
            ..plan::Remaining::default()
        };
        self.kind_done(key, &found, cx)
    }
}

impl Controller for NamespaceController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    /// `enqueueNamespace`: a namespace being deleted, 5 s after each change.
    fn on_delta(&mut self, delta: &InformerDelta, _informers: &Informers, cx: &mut Cx<'_>) {
        let (InformerDelta::Added(object) | InformerDelta::Updated { new: object, .. }) = delta
        else {
            return;
        };
        if let Object::Namespace(ns) = &**object
            && deleting(ns)
        {
            self.queue
                .add_after(object.name(), DELETION_GRACE_PERIOD_MS, cx.now);
        }
    }

    /// `syncNamespaceFromKey`: the deleter starts from a fresh GET.
    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        if informers.namespaces.get(key).is_none() {
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        }
        self.send(
            key,
            Step::Get,
            request(Verb::Get, kind_of("Namespace"), None, key),
            cx,
        )
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let (key, step) = self.inflight.remove(&id)?;
        let progress = match step {
            Step::Get => self.on_get(&key, response, cx),
            Step::Estimate | Step::List | Step::Verify => self.on_list(&key, step, response, cx),
            Step::Delete => self.on_delete(&key, response, cx),
            // A failed status write is only logged upstream (`HandleError`).
            Step::Status => self.after_content(&key, cx),
            Step::Finalize if response.code == 409 => {
                // The conditions' write moved the namespace on: get it and try again.
                let req = request(Verb::Get, kind_of("Namespace"), None, &key);
                self.send(&key, Step::Refetch, req, cx)
            }
            Step::Refetch => match response
                .object
                .as_deref()
                .and_then(|o| o.get::<Namespace>())
            {
                Some(ns) if response.code < 300 => {
                    let ns = ns.clone();
                    self.finalize(&key, &ns, cx)
                }
                _ => {
                    self.passes.remove(&key);
                    Progress::Failed(response.message())
                }
            },
            Step::Finalize => {
                self.passes.remove(&key);
                if response.code < 300 || response.code == 404 {
                    Progress::Done
                } else {
                    Progress::Failed(response.message())
                }
            }
        };
        Some((key, progress))
    }
}
