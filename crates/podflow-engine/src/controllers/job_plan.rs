//! What one sync of a Job decides (`pkg/controller/job/job_controller.go`:
//! `syncJob`, `manageJob`, `pastBackoffLimitOnFailure`, `newCondition`,
//! `getStatus`), as a pure function of the Job, its Pods and the time: how
//! many Pods to create, which to delete, the new status and the events.
//!
//! Not modelled: the pod-creation back-off after failures, indexed
//! completion, `podFailurePolicy`, `successPolicy`, `activeDeadlineSeconds`,
//! suspension, and the `batch.kubernetes.io/job-tracking` finalizer (podflow
//! counts finished Pods from the cache, as upstream did before 1.26: a
//! finished Pod that is deleted before the count is written is lost).

use k8s_openapi::api::batch::v1::{Job, JobCondition, JobStatus};
use k8s_openapi::api::core::v1::Pod;

use super::pods::{is_ready, phase};
use crate::clock::SimTime;

/// `jobConditionReasonBackoffLimitExceeded` and its message.
pub const BACKOFF_LIMIT_EXCEEDED: (&str, &str) = (
    "BackoffLimitExceeded",
    "Job has reached the specified backoff limit",
);
/// `jobConditionReasonCompletionsReached` and its message.
pub const COMPLETIONS_REACHED: (&str, &str) = (
    "CompletionsReached",
    "Reached expected number of succeeded pods",
);

/// What a sync does.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    /// Pods to create from the template.
    pub create: usize,
    /// Active Pods to delete (surplus, or the Job finished).
    pub delete: Vec<String>,
    /// The status to write.
    pub status: JobStatus,
    /// Events: (warning, reason, message).
    pub events: Vec<(bool, &'static str, String)>,
}

/// `spec.parallelism`, defaulted to 1.
fn parallelism(job: &Job) -> i32 {
    job.spec.as_ref().and_then(|s| s.parallelism).unwrap_or(1)
}

/// `spec.completions`; `None` for a work-queue Job.
fn completions(job: &Job) -> Option<i32> {
    job.spec.as_ref().and_then(|s| s.completions)
}

/// `spec.backoffLimit`, defaulted to 6.
fn backoff_limit(job: &Job) -> i32 {
    job.spec.as_ref().and_then(|s| s.backoff_limit).unwrap_or(6)
}

fn restart_policy(job: &Job) -> &str {
    job.spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("Never")
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Whether the Job has a true `Complete` or `Failed` condition (`IsJobFinished`).
pub fn is_finished(job: &Job) -> bool {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .any(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")
}

/// `newCondition`.
fn condition(type_: &str, (reason, message): (&str, &str), now: SimTime) -> JobCondition {
    JobCondition {
        type_: type_.into(),
        status: "True".into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_probe_time: Some(now.to_time()),
        last_transition_time: Some(now.to_time()),
    }
}

/// `pastBackoffLimitOnFailure`: for `restartPolicy: OnFailure`, the restarts
/// of the active Pods' containers count as failures.
fn past_backoff_limit_on_failure(job: &Job, active: &[&Pod]) -> bool {
    if restart_policy(job) != "OnFailure" {
        return false;
    }
    let restarts: i32 = active
        .iter()
        .filter_map(|p| p.status.as_ref())
        .flat_map(|s| {
            s.init_container_statuses
                .iter()
                .flatten()
                .chain(s.container_statuses.iter().flatten())
        })
        .map(|c| c.restart_count)
        .sum();
    let limit = backoff_limit(job);
    if limit == 0 {
        return restarts > 0;
    }
    restarts >= limit
}

/// `syncJob` for a Job and the Pods it controls.
pub fn plan(job: &Job, pods: &[&Pod], now: SimTime) -> Plan {
    let current = job.status.clone().unwrap_or_default();
    let mut status = JobStatus {
        start_time: current.start_time.clone().or_else(|| Some(now.to_time())),
        completion_time: current.completion_time.clone(),
        conditions: current.conditions.clone(),
        ..JobStatus::default()
    };
    let mut active: Vec<&Pod> = pods
        .iter()
        .copied()
        .filter(|p| {
            !matches!(phase(p), "Succeeded" | "Failed") && p.metadata.deletion_timestamp.is_none()
        })
        .collect();
    active.sort_by_key(|p| p.metadata.name.clone());
    let succeeded = count(pods.iter().filter(|p| phase(p) == "Succeeded").count());
    let failed = count(pods.iter().filter(|p| phase(p) == "Failed").count());
    let mut plan = Plan::default();
    if is_finished(job) {
        status.active = Some(count(active.len()));
        status.succeeded = Some(succeeded);
        status.failed = Some(failed);
        status.ready = Some(count(active.iter().filter(|p| is_ready(p)).count()));
        plan.status = status;
        return plan;
    }
    let exceeds = failed > backoff_limit(job) || past_backoff_limit_on_failure(job, &active);
    let want = completions(job);
    let mut active_left = active.len();
    if exceeds {
        // The Job failed: the active Pods are deleted, the conditions added.
        plan.delete = active
            .iter()
            .map(|p| p.metadata.name.clone().unwrap_or_default())
            .collect();
        active_left = 0;
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        conditions.push(condition("FailureTarget", BACKOFF_LIMIT_EXCEEDED, now));
        conditions.push(condition("Failed", BACKOFF_LIMIT_EXCEEDED, now));
        plan.events.push((
            true,
            BACKOFF_LIMIT_EXCEEDED.0,
            BACKOFF_LIMIT_EXCEEDED.1.to_owned(),
        ));
    } else if want.is_some_and(|c| succeeded >= c)
        || (want.is_none() && succeeded > 0 && active.is_empty())
    {
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        conditions.push(condition("SuccessCriteriaMet", COMPLETIONS_REACHED, now));
        conditions.push(condition("Complete", COMPLETIONS_REACHED, now));
        status.completion_time = Some(now.to_time());
        plan.events
            .push((false, "Completed", "Job completed".to_owned()));
    } else {
        // manageJob: as many active Pods as parallelism allows and completions still need.
        let mut wanted = parallelism(job);
        if let Some(c) = want {
            wanted = wanted.min(c - succeeded);
        } else if succeeded > 0 {
            wanted = count(active.len());
        }
        let wanted = usize::try_from(wanted.max(0)).unwrap_or(0);
        if active.len() < wanted {
            plan.create = wanted - active.len();
            active_left = wanted;
        } else if active.len() > wanted {
            plan.delete = active[wanted..]
                .iter()
                .map(|p| p.metadata.name.clone().unwrap_or_default())
                .collect();
            active_left = wanted;
        }
    }
    status.active = Some(count(active_left));
    status.succeeded = Some(succeeded);
    status.failed = Some(failed);
    status.ready = Some(count(active.iter().filter(|p| is_ready(p)).count()));
    plan.status = status;
    plan
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::batch::v1::JobSpec;
    use k8s_openapi::api::core::v1::{ContainerStatus, PodSpec, PodStatus, PodTemplateSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    fn job(completions: Option<i32>, parallelism: i32, backoff: i32, restart: &str) -> Job {
        Job {
            metadata: ObjectMeta {
                name: Some("pi".into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            spec: Some(JobSpec {
                completions,
                parallelism: Some(parallelism),
                backoff_limit: Some(backoff),
                template: PodTemplateSpec {
                    metadata: None,
                    spec: Some(PodSpec {
                        restart_policy: Some(restart.into()),
                        ..PodSpec::default()
                    }),
                },
                ..JobSpec::default()
            }),
            status: None,
        }
    }

    fn pod(name: &str, phase: &str, restarts: i32) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            spec: None,
            status: Some(PodStatus {
                phase: Some(phase.into()),
                container_statuses: Some(vec![ContainerStatus {
                    restart_count: restarts,
                    ..ContainerStatus::default()
                }]),
                ..PodStatus::default()
            }),
        }
    }

    fn types(plan: &Plan) -> Vec<(String, String)> {
        plan.status
            .conditions
            .iter()
            .flatten()
            .map(|c| (c.type_.clone(), c.reason.clone().unwrap_or_default()))
            .collect()
    }

    /// Mirrors rows of `TestControllerSyncJob` (`pkg/controller/job/job_controller_test.go`):
    /// (name, completions, parallelism, backoffLimit, restartPolicy, pods,
    /// want creations, deletions, active, succeeded, failed, conditions).
    #[test]
    #[expect(
        clippy::type_complexity,
        clippy::too_many_lines,
        reason = "a test table"
    )]
    fn controller_sync_job_table() {
        let cases: Vec<(
            &str,
            Option<i32>,
            i32,
            i32,
            &str,
            Vec<Pod>,
            usize,
            usize,
            i32,
            i32,
            i32,
            Vec<&str>,
        )> = vec![
            (
                "job start",
                Some(5),
                2,
                6,
                "Never",
                vec![],
                2,
                0,
                2,
                0,
                0,
                vec![],
            ),
            (
                "WQ job start",
                None,
                2,
                6,
                "Never",
                vec![],
                2,
                0,
                2,
                0,
                0,
                vec![],
            ),
            (
                "correct # of pods",
                Some(5),
                2,
                6,
                "Never",
                vec![pod("a", "Running", 0), pod("b", "Pending", 0)],
                0,
                0,
                2,
                0,
                0,
                vec![],
            ),
            (
                "too few active pods",
                Some(5),
                2,
                6,
                "Never",
                vec![pod("a", "Running", 0), pod("s", "Succeeded", 0)],
                1,
                0,
                2,
                1,
                0,
                vec![],
            ),
            (
                "too many active pods",
                Some(5),
                2,
                6,
                "Never",
                vec![
                    pod("a", "Running", 0),
                    pod("b", "Running", 0),
                    pod("c", "Running", 0),
                ],
                0,
                1,
                2,
                0,
                0,
                vec![],
            ),
            (
                "failed + succeed pods: replace the failed one",
                Some(5),
                2,
                6,
                "Never",
                vec![
                    pod("a", "Running", 0),
                    pod("f", "Failed", 0),
                    pod("s", "Succeeded", 0),
                ],
                1,
                0,
                2,
                1,
                1,
                vec![],
            ),
            (
                "only the remaining completions are started",
                Some(3),
                2,
                6,
                "Never",
                vec![pod("s1", "Succeeded", 0), pod("s2", "Succeeded", 0)],
                1,
                0,
                1,
                2,
                0,
                vec![],
            ),
            (
                "job finish",
                Some(3),
                2,
                6,
                "Never",
                vec![
                    pod("s1", "Succeeded", 0),
                    pod("s2", "Succeeded", 0),
                    pod("s3", "Succeeded", 0),
                ],
                0,
                0,
                0,
                3,
                0,
                vec!["SuccessCriteriaMet", "Complete"],
            ),
            (
                "WQ job finishing: a success and nothing active",
                None,
                2,
                6,
                "Never",
                vec![pod("s1", "Succeeded", 0)],
                0,
                0,
                0,
                1,
                0,
                vec!["SuccessCriteriaMet", "Complete"],
            ),
            (
                "too many failed pods: backoffLimit exceeded",
                Some(5),
                2,
                1,
                "Never",
                vec![
                    pod("a", "Running", 0),
                    pod("f1", "Failed", 0),
                    pod("f2", "Failed", 0),
                ],
                0,
                1,
                0,
                0,
                2,
                vec!["FailureTarget", "Failed"],
            ),
            (
                "OnFailure: restarts count against backoffLimit",
                Some(1),
                1,
                2,
                "OnFailure",
                vec![pod("a", "Running", 2)],
                0,
                1,
                0,
                0,
                0,
                vec!["FailureTarget", "Failed"],
            ),
            (
                "OnFailure below the limit",
                Some(1),
                1,
                2,
                "OnFailure",
                vec![pod("a", "Running", 1)],
                0,
                0,
                1,
                0,
                0,
                vec![],
            ),
        ];
        for (
            name,
            completions,
            parallelism,
            backoff,
            restart,
            pods,
            create,
            delete,
            active,
            succeeded,
            failed,
            conditions,
        ) in cases
        {
            let j = job(completions, parallelism, backoff, restart);
            let refs: Vec<&Pod> = pods.iter().collect();
            let plan = plan(&j, &refs, SimTime(5000));
            assert_eq!(plan.create, create, "{name}: creations");
            assert_eq!(plan.delete.len(), delete, "{name}: deletions");
            assert_eq!(plan.status.active, Some(active), "{name}: active");
            assert_eq!(plan.status.succeeded, Some(succeeded), "{name}: succeeded");
            assert_eq!(plan.status.failed, Some(failed), "{name}: failed");
            let got: Vec<String> = types(&plan).into_iter().map(|(t, _)| t).collect();
            assert_eq!(got, conditions, "{name}: conditions");
            assert!(plan.status.start_time.is_some(), "{name}: startTime");
        }
    }

    #[test]
    fn conditions_and_events_are_worded_as_upstream() {
        let j = job(Some(1), 1, 0, "Never");
        let failed = [pod("f", "Failed", 0)];
        let refs: Vec<&Pod> = failed.iter().collect();
        let p = plan(&j, &refs, SimTime(1000));
        let c = &p.status.conditions.as_ref().unwrap()[1];
        assert_eq!(
            (c.type_.as_str(), c.reason.as_deref(), c.message.as_deref()),
            (
                "Failed",
                Some("BackoffLimitExceeded"),
                Some("Job has reached the specified backoff limit")
            )
        );
        assert_eq!(
            p.events,
            [(
                true,
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit".to_owned()
            )]
        );

        let done = [pod("s", "Succeeded", 0)];
        let refs: Vec<&Pod> = done.iter().collect();
        let p = plan(&j, &refs, SimTime(1000));
        let c = &p.status.conditions.as_ref().unwrap()[1];
        assert_eq!(
            (c.type_.as_str(), c.reason.as_deref(), c.message.as_deref()),
            (
                "Complete",
                Some("CompletionsReached"),
                Some("Reached expected number of succeeded pods")
            )
        );
        assert!(p.status.completion_time.is_some());
        assert_eq!(p.events, [(false, "Completed", "Job completed".to_owned())]);

        // A finished Job is left alone.
        let mut finished = j.clone();
        finished.status = Some(p.status.clone());
        let again = plan(&finished, &refs, SimTime(2000));
        assert_eq!((again.create, again.delete.len()), (0, 0));
        assert!(again.events.is_empty());
    }
}
