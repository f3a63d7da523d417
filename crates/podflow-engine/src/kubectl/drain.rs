//! The requests of `kubectl drain` (`pkg/cmd/drain/drain.go`, `pkg/drain/`),
//! one after another as podflow's kubectl sends them: the node's GET, the
//! cordon patch (`cordon.go`), the LIST of its Pods (field selector
//! `spec.nodeName`), a GET of each Pod's `DaemonSet`, the filters
//! ([`drain_plan`]), a POST to each Pod's `eviction` subresource, and GETs
//! each second until the Pods are gone. kubectl evicts in parallel
//! goroutines; here the evictions go one by one, then the waiting.

use k8s_openapi::api::core::v1::Pod;

use super::drain_plan::{self, DaemonSetAnswer, DrainFlags};
use super::taint_plan::aggregate;
use super::{Body, Cx, InFlight, Kind, Kubectl, KubectlTimer, Object, Response, Verb, error_lines};
use crate::store::selector::FieldRequirement;
use podflow_model::kinds::kind_of;

/// `drain`'s options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrainOptions {
    pub flags: DrainFlags,
    /// `--grace-period`: sent in the eviction's delete options when not negative.
    pub grace_period: Option<i64>,
    /// `--timeout` in milliseconds (none: wait for ever).
    pub timeout_ms: Option<u64>,
}

/// A Pod being evicted: enough to look it up again.
#[derive(Debug, Clone)]
struct Evictee {
    namespace: String,
    name: String,
    uid: String,
}

/// What a drain has done so far, and the request it waits on.
#[derive(Debug, Clone)]
pub(super) struct Draining {
    node: String,
    options: DrainOptions,
    step: Step,
    pods: Vec<Pod>,
    daemon_sets: Vec<Option<DaemonSetAnswer>>,
    to_evict: Vec<Evictee>,
    waiting: Vec<Evictee>,
    /// The Pods still there after this round of GETs.
    pending: Vec<Evictee>,
    errors: Vec<String>,
    /// When `--timeout` runs out (simulated milliseconds).
    deadline: Option<u64>,
}

/// The request in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    GetNode,
    Cordon,
    ListPods,
    /// The GET of Pod `i`'s `DaemonSet`.
    DaemonSet(usize),
    /// The eviction of `to_evict[i]`.
    Evict(usize),
    /// The GET of `waiting[i]`.
    Poll(usize),
    /// Nothing: waiting a second before the next round of GETs.
    Pause,
}

fn evictee(pod: &Pod) -> Evictee {
    Evictee {
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        name: pod.metadata.name.clone().unwrap_or_default(),
        uid: pod.metadata.uid.clone().unwrap_or_default(),
    }
}

fn message(response: &Response) -> String {
    response
        .status
        .as_ref()
        .and_then(|s| s.message.clone())
        .unwrap_or_else(|| format!("the server answered {}", response.code))
}

impl Kubectl {
    /// `drain NODE`: first the node's GET.
    pub(super) fn start_drain(&mut self, node: String, options: DrainOptions, cx: &mut Cx<'_>) {
        let draining = Draining {
            node,
            options,
            step: Step::GetNode,
            pods: Vec::new(),
            daemon_sets: Vec::new(),
            to_evict: Vec::new(),
            waiting: Vec::new(),
            pending: Vec::new(),
            errors: Vec::new(),
            deadline: None,
        };
        let req = self.request(Verb::Get, kind_of("Node"), None, &draining.node);
        self.send(req, InFlight::Drain(Box::new(draining)), cx);
    }

    /// A drain parked for a second goes on.
    pub(super) fn resume_drain(&mut self, cx: &mut Cx<'_>) {
        if let Some(d) = self.draining.take() {
            self.drain_poll(d, 0, cx);
        }
    }

    /// The answer to a drain's request.
    pub(super) fn drain_answered(
        &mut self,
        mut d: Box<Draining>,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let ok = response.code < 300;
        match d.step {
            Step::GetNode => {
                let Some(node) = response
                    .object
                    .as_deref()
                    .and_then(Object::as_node)
                    .filter(|_| ok)
                else {
                    return Self::print_all(cx, error_lines(response, ""));
                };
                let cordoned = node
                    .spec
                    .as_ref()
                    .and_then(|s| s.unschedulable)
                    .unwrap_or(false);
                if cordoned {
                    Self::print(cx, format!("node/{} already cordoned", d.node));
                    return self.drain_list(d, cx);
                }
                d.step = Step::Cordon;
                let req = self
                    .request(Verb::Patch, kind_of("Node"), None, &d.node)
                    .body(Body::Patch(
                        serde_json::json!({"spec": {"unschedulable": true}}),
                    ));
                self.send(req, InFlight::Drain(d), cx);
            }
            Step::Cordon => {
                if ok {
                    Self::print(cx, format!("node/{} cordoned", d.node));
                } else {
                    // `RunCordonOrUncordon` prints the error and goes on.
                    Self::print(
                        cx,
                        format!(
                            "error: unable to cordon node {:?}: {}",
                            d.node,
                            message(response)
                        ),
                    );
                }
                self.drain_list(d, cx);
            }
            Step::ListPods => {
                if !ok {
                    d.errors.push(message(response));
                    return Self::drain_failed(&d, cx);
                }
                d.pods = response
                    .items
                    .iter()
                    .filter_map(|o| o.as_pod().cloned())
                    .collect();
                d.daemon_sets = vec![None; d.pods.len()];
                self.drain_daemon_set(d, 0, cx);
            }
            Step::DaemonSet(i) => {
                let answer = match response.code {
                    c if c < 300 => DaemonSetAnswer::Found,
                    404 => DaemonSetAnswer::NotFound(message(response)),
                    _ => DaemonSetAnswer::Failed(message(response)),
                };
                d.daemon_sets[i] = Some(answer);
                self.drain_daemon_set(d, i + 1, cx);
            }
            Step::Evict(i) => self.drain_evicted(d, i, response, cx),
            Step::Poll(i) => self.drain_polled(d, i, response, cx),
            Step::Pause => {}
        }
    }

    /// The answer to the eviction of `to_evict[i]`.
    fn drain_evicted(
        &mut self,
        mut d: Box<Draining>,
        i: usize,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let pod = d.to_evict[i].clone();
        match response.code {
            c if c < 300 => d.waiting.push(pod),
            // Gone already: nothing to wait for, nothing printed.
            404 => {}
            _ => d.errors.push(format!(
                "error when evicting pods/{:?} -n {:?}: {}",
                pod.name,
                pod.namespace,
                message(response)
            )),
        }
        self.drain_evict(d, i + 1, cx);
    }

    /// The answer to the GET of `waiting[i]`: gone (or another Pod of that
    /// name) prints `pod/NAME evicted`.
    fn drain_polled(
        &mut self,
        mut d: Box<Draining>,
        i: usize,
        response: &Response,
        cx: &mut Cx<'_>,
    ) {
        let pod = d.waiting[i].clone();
        let ok = response.code < 300;
        let gone = response.code == 404
            || (ok
                && response
                    .object
                    .as_ref()
                    .is_some_and(|o| o.metadata().uid.as_deref() != Some(pod.uid.as_str())));
        if gone {
            Self::print(cx, format!("pod/{} evicted", pod.name));
        } else if ok {
            d.pending.push(pod);
        } else {
            Self::print(cx, format!("pod/{} eviction failed", pod.name));
            d.errors.push(format!(
                "error when waiting for pod {:?} in namespace {:?} to terminate: {}",
                pod.name,
                pod.namespace,
                message(response)
            ));
        }
        self.drain_poll(d, i + 1, cx);
    }

    /// The LIST of the node's Pods, in every namespace.
    fn drain_list(&mut self, mut d: Box<Draining>, cx: &mut Cx<'_>) {
        d.step = Step::ListPods;
        let mut req = self.request(Verb::List, kind_of("Pod"), None, "");
        req.selector.fields.push(FieldRequirement {
            field: "spec.nodeName".into(),
            value: d.node.clone(),
            negated: false,
        });
        self.send(req, InFlight::Drain(d), cx);
    }

    /// `daemonSetFilter`'s GET of the `DaemonSet` of each Pod from `from` on
    /// that has one; then the filters.
    fn drain_daemon_set(&mut self, mut d: Box<Draining>, from: usize, cx: &mut Cx<'_>) {
        let next = (from..d.pods.len())
            .find_map(|i| drain_plan::daemon_set_of(&d.pods[i]).map(|ds| (i, ds.to_owned())));
        if let Some((i, ds)) = next {
            let Some(kind) = Kind::lookup("DaemonSet") else {
                // podflow serves no DaemonSets: the GET would find none.
                let missing = format!("daemonsets.apps \"{ds}\" not found");
                d.daemon_sets[i] = Some(DaemonSetAnswer::NotFound(missing));
                return self.drain_daemon_set(d, i + 1, cx);
            };
            d.step = Step::DaemonSet(i);
            let namespace = d.pods[i].metadata.namespace.clone();
            let req = self.request(Verb::Get, kind, namespace, &ds);
            return self.send(req, InFlight::Drain(d), cx);
        }
        let filtered = drain_plan::filter(&d.pods, &d.daemon_sets, d.options.flags);
        if !filtered.errors.is_empty() {
            d.errors = filtered.errors;
            return Self::drain_failed(&d, cx);
        }
        if !filtered.warnings.is_empty() {
            Self::print(cx, format!("Warning: {}", filtered.warnings));
        }
        d.to_evict = filtered
            .evict
            .iter()
            .map(|&i| evictee(&d.pods[i]))
            .collect();
        d.deadline = d
            .options
            .timeout_ms
            .filter(|t| *t > 0)
            .map(|t| cx.now.as_millis() + t);
        self.drain_evict(d, 0, cx);
    }

    /// The eviction of `to_evict[i]`, or the waiting once all are sent.
    fn drain_evict(&mut self, mut d: Box<Draining>, i: usize, cx: &mut Cx<'_>) {
        let Some(pod) = d.to_evict.get(i).cloned() else {
            return self.drain_poll(d, 0, cx);
        };
        Self::print(cx, format!("evicting pod {}/{}", pod.namespace, pod.name));
        d.step = Step::Evict(i);
        let req = self
            .request(Verb::Create, kind_of("Pod"), Some(pod.namespace), &pod.name)
            .subresource("eviction")
            .body(Body::Delete {
                grace_period_seconds: d.options.grace_period,
            });
        self.send(req, InFlight::Drain(d), cx);
    }

    /// The GET of `waiting[i]`; after the last, the next round a second
    /// later (`waitForDelete`'s one-second poll), or the end.
    fn drain_poll(&mut self, mut d: Box<Draining>, i: usize, cx: &mut Cx<'_>) {
        if let Some(pod) = d.waiting.get(i).cloned() {
            d.step = Step::Poll(i);
            let req = self.request(Verb::Get, kind_of("Pod"), Some(pod.namespace), &pod.name);
            return self.send(req, InFlight::Drain(d), cx);
        }
        d.waiting = std::mem::take(&mut d.pending);
        if d.waiting.is_empty() {
            return Self::drain_finished(&d, cx);
        }
        let now = cx.now.as_millis();
        if d.deadline.is_some_and(|deadline| now + 1000 > deadline) {
            for pod in std::mem::take(&mut d.waiting) {
                d.errors.push(format!(
                    "error when waiting for pod {:?} in namespace {:?} to terminate: context deadline exceeded",
                    pod.name, pod.namespace
                ));
            }
            return Self::drain_finished(&d, cx);
        }
        d.step = Step::Pause;
        self.draining = Some(d);
        self.waiting_timer = true;
        cx.after(1000, KubectlTimer::WaitOver);
    }

    fn drain_finished(d: &Draining, cx: &mut Cx<'_>) {
        if d.errors.is_empty() {
            Self::print(cx, format!("node/{} drained", d.node));
        } else {
            Self::drain_failed(d, cx);
        }
    }

    /// `RunDrain`'s lines for a node it could not drain, then the error
    /// `CheckErr` prints.
    fn drain_failed(d: &Draining, cx: &mut Cx<'_>) {
        let error = aggregate(&d.errors);
        Self::print_all(
            cx,
            vec![
                format!(
                    "error: unable to drain node {:?} due to error: {error}, continuing command...",
                    d.node
                ),
                "There are pending nodes to be drained:".into(),
                format!(" {}", d.node),
                format!("error: {error}"),
            ],
        );
    }
}
