//! The Job controller (`pkg/controller/job/job_controller.go`): Pods from the
//! template until `completions` have succeeded, at most `parallelism` at a
//! time, and a `Failed` Job once more Pods failed than `backoffLimit`
//! allows. A sync carries out [`super::job_plan::plan`]: creations and
//! deletions first, with expectations so a stale cache never creates twice,
//! then the status through the `status` subresource.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;

use super::client::{self, event};
use super::expectations::Expectations;
use super::informer::{InformerDelta, key_of};
use super::job_plan::{Plan, plan};
use super::own_writes::OwnWrites;
use super::pods::{controlled_by, controller_key, meta_key, pod_from_template};
use super::workqueue::WorkQueue;
use super::{
    Controller, Informers, Progress, enqueue, owned_object_changed, sync_stage, wait_for_own_write,
};
use crate::apiserver::handler::Response;
use crate::apiserver::request::{Body, Verb};
use crate::component::{Cx, RequestId};
use crate::trace::Outcome;
use podflow_model::Object;
use podflow_model::kinds::kind_of;

/// The controller's service account and its events' source.
pub const NAME: &str = "job-controller";

/// A request in flight.
#[derive(Debug, Clone)]
enum Pending {
    Create(String),
    Delete { key: String, pod: String },
    Status(String),
}

/// A sync waiting for its creations and deletions to be answered.
#[derive(Debug, Clone)]
struct Sync {
    job: Arc<Job>,
    plan: Plan,
    outstanding: usize,
    error: Option<String>,
}

/// The controller's state.
#[derive(Debug, Clone, Default)]
pub struct JobController {
    queue: WorkQueue,
    expectations: Expectations,
    inflight: BTreeMap<RequestId, Pending>,
    syncs: BTreeMap<String, Sync>,
    writes: OwnWrites,
}

/// The Pods `job` controls.
fn owned_pods<'a>(job: &Job, informers: &'a Informers) -> Vec<&'a Pod> {
    let uid = job.metadata.uid.as_deref().unwrap_or_default();
    informers
        .pods
        .owned_by(uid)
        .filter_map(|o| o.as_pod())
        .filter(|p| controlled_by(&p.metadata, &job.metadata))
        .collect()
}

impl JobController {
    fn job_event(job: &Job, warning: bool, reason: &str, message: String, cx: &mut Cx<'_>) {
        let ns = job.metadata.namespace.as_deref().unwrap_or_default();
        let name = job.metadata.name.as_deref().unwrap_or_default();
        cx.event(event(warning, reason, message, ("Job", ns, name), NAME));
    }

    /// Writes the planned status, unless it is what the Job holds.
    fn write_status(&mut self, key: &str, sync: &Sync, cx: &mut Cx<'_>) -> Progress {
        self.syncs.remove(key);
        if let Some(error) = &sync.error {
            return Progress::Failed(error.clone());
        }
        let job = &sync.job;
        for (warning, reason, message) in &sync.plan.events {
            Self::job_event(job, *warning, reason, message.clone(), cx);
        }
        let status = sync.plan.status.clone();
        if job.status.as_ref() == Some(&status) {
            return Progress::Done;
        }
        sync_stage(
            NAME,
            Outcome::Status,
            format!(
                "{key}: active {}, succeeded {}, failed {}, ready {}",
                status.active.unwrap_or(0),
                status.succeeded.unwrap_or(0),
                status.failed.unwrap_or(0),
                status.ready.unwrap_or(0)
            ),
            cx,
        );
        let mut updated = (**job).clone();
        updated.status = Some(status);
        let request = client::request(
            NAME,
            Verb::Update,
            kind_of("Job"),
            job.metadata.namespace.as_deref(),
            job.metadata.name.as_deref().unwrap_or_default(),
        )
        .subresource("status")
        .body(Body::Object(Box::new(Object::from(updated))));
        let id = cx.send(request);
        self.inflight.insert(id, Pending::Status(key.to_owned()));
        Progress::Waiting
    }

    fn answered(&mut self, key: &str, ok: bool, error: String, cx: &mut Cx<'_>) -> Progress {
        let Some(sync) = self.syncs.get_mut(key) else {
            return Progress::Done;
        };
        sync.outstanding = sync.outstanding.saturating_sub(1);
        if !ok {
            sync.error = Some(error);
        }
        if sync.outstanding > 0 {
            return Progress::Waiting;
        }
        let sync = sync.clone();
        self.write_status(key, &sync, cx)
    }
}

impl Controller for JobController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn queue(&mut self) -> &mut WorkQueue {
        &mut self.queue
    }

    fn on_delta(&mut self, delta: &InformerDelta, informers: &Informers, cx: &mut Cx<'_>) {
        let object = delta.object();
        match &**object {
            Object::Job(_) => {
                owned_object_changed(NAME, &mut self.queue, &mut self.expectations, delta, cx);
            }
            Object::Pod(pod) => {
                let Some(key) = controller_key(&pod.metadata, "Job", &informers.jobs) else {
                    return;
                };
                match delta {
                    InformerDelta::Added(_) => self.expectations.creation_observed(&key),
                    InformerDelta::Deleted(_) => self
                        .expectations
                        .deletion_observed(&key, &meta_key(&pod.metadata)),
                    InformerDelta::Updated { .. } => {}
                }
                enqueue(NAME, &mut self.queue, &key, cx);
            }
            _ => {}
        }
    }

    fn sync(&mut self, key: &str, informers: &Informers, cx: &mut Cx<'_>) -> Progress {
        let Some(job) = informers.jobs.get(key).and_then(|o| o.get::<Job>()) else {
            self.expectations.forget(key);
            sync_stage(NAME, Outcome::Gone, format!("{key} has been deleted"), cx);
            return Progress::Done;
        };
        let relevant = |o: &Object| matches!(o, Object::Job(_)) && key_of(o) == key;
        if wait_for_own_write(NAME, &mut self.writes, informers, key, relevant, cx) {
            return Progress::Deferred;
        }
        if !self.expectations.satisfied(key, cx.now) {
            let (adds, dels) = self.expectations.pending(key);
            sync_stage(
                NAME,
                Outcome::Waiting,
                format!(
                    "{key}: expecting {adds} creation(s) and {dels} deletion(s) to be observed first"
                ),
                cx,
            );
            return Progress::Done;
        }
        let job = Arc::new(job.clone());
        let pods = owned_pods(&job, informers);
        let plan = plan(&job, &pods, cx.now);
        let ns = job.metadata.namespace.clone();
        if plan.create > 0 {
            sync_stage(
                NAME,
                Outcome::Create,
                format!("{key}: {} active; creating {}", pods.len(), plan.create),
                cx,
            );
            self.expectations.expect_creations(key, plan.create, cx.now);
            for _ in 0..plan.create {
                let request =
                    client::request(NAME, Verb::Create, kind_of("Pod"), ns.as_deref(), "").body(
                        Body::Object(Box::new(Object::Pod(pod_from_template(
                            job.spec.clone().unwrap_or_default().template,
                            &job.metadata,
                            "batch/v1",
                            "Job",
                        )))),
                    );
                let id = cx.send(request);
                self.inflight.insert(id, Pending::Create(key.to_owned()));
            }
        }
        if !plan.delete.is_empty() {
            sync_stage(
                NAME,
                Outcome::Delete,
                format!("{key}: deleting {}", plan.delete.join(", ")),
                cx,
            );
            let ns_str = ns.clone().unwrap_or_default();
            let keys: Vec<String> = plan
                .delete
                .iter()
                .map(|p| format!("{ns_str}/{p}"))
                .collect();
            self.expectations.expect_deletions(key, &keys, cx.now);
            for pod in &plan.delete {
                let request =
                    client::request(NAME, Verb::Delete, kind_of("Pod"), ns.as_deref(), pod);
                let id = cx.send(request);
                self.inflight.insert(
                    id,
                    Pending::Delete {
                        key: key.to_owned(),
                        pod: pod.clone(),
                    },
                );
            }
        }
        let sync = Sync {
            job,
            outstanding: plan.create + plan.delete.len(),
            plan,
            error: None,
        };
        if sync.outstanding > 0 {
            self.syncs.insert(key.to_owned(), sync);
            return Progress::Waiting;
        }
        self.write_status(key, &sync, cx)
    }

    fn on_response(
        &mut self,
        id: RequestId,
        response: &Response,
        _informers: &Informers,
        cx: &mut Cx<'_>,
    ) -> Option<(String, Progress)> {
        let pending = self.inflight.remove(&id)?;
        let ok = response.code < 300;
        Some(match pending {
            Pending::Create(key) => {
                if let Some(job) = self.syncs.get(&key).map(|s| Arc::clone(&s.job)) {
                    if ok {
                        let pod = response.object.as_ref().map(|o| o.name().to_owned());
                        let message = format!("Created pod: {}", pod.unwrap_or_default());
                        Self::job_event(&job, false, "SuccessfulCreate", message, cx);
                    } else {
                        self.expectations.creation_observed(&key);
                        let message = format!("Error creating: {}", response.message());
                        Self::job_event(&job, true, "FailedCreate", message, cx);
                    }
                }
                let progress = self.answered(&key, ok, response.message(), cx);
                (key, progress)
            }
            Pending::Delete { key, pod } => {
                if let Some(job) = self.syncs.get(&key).map(|s| Arc::clone(&s.job)) {
                    if ok {
                        Self::job_event(
                            &job,
                            false,
                            "SuccessfulDelete",
                            format!("Deleted pod: {pod}"),
                            cx,
                        );
                    } else {
                        let ns = job.metadata.namespace.clone().unwrap_or_default();
                        self.expectations
                            .deletion_observed(&key, &format!("{ns}/{pod}"));
                    }
                }
                let ok = ok || response.code == 404;
                let progress = self.answered(&key, ok, response.message(), cx);
                (key, progress)
            }
            Pending::Status(key) => {
                if ok {
                    if let Some(written) = &response.object {
                        self.writes.wrote(written);
                    }
                    (key, Progress::Done)
                } else {
                    (key, Progress::Failed(response.message()))
                }
            }
        })
    }
}
