//! Ensuring a container's image (`pkg/kubelet/images/image_manager.go`,
//! `EnsureImageExists`): the pull policy, the pull from the registry, and the
//! image pull back-off (`ErrImagePull`, then `ImagePullBackOff`).

use super::backoff;
use super::lifecycle;
use super::pull_errors::{pull_error, short_reason};
use super::pull_policy::{self, Decision, ImageEvent};
use super::status::ContainerState;
use super::{Kubelet, Step, klog, until};
use crate::component::Cx;
use crate::trace::{Actor, Outcome, StageName};

/// The pod worker syncs again this soon after a failed pull (the PLEG and
/// status updates wake it), showing `ImagePullBackOff`.
pub(super) const RESYNC_AFTER_FAILURE_MS: u64 = 1000;

impl Kubelet {
    fn image_events(cx: &mut Cx<'_>, key: &str, events: Vec<ImageEvent>, field: &str) {
        for e in events {
            Self::event(
                cx,
                key,
                e.warning,
                e.reason,
                e.message,
                Some(field.to_owned()),
            );
        }
    }

    /// Makes sure container `i`'s image is on the node; returns whether the
    /// container can be created now (else a pull is under way or failed).
    pub(super) fn ensure_image(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) -> bool {
        let Some(w) = self.workers.get_mut(key) else {
            return false;
        };
        let uid = w.names().2;
        let ctr = &mut w.ctrs[i];
        let spec_image = ctr.spec.image.clone().unwrap_or_default();
        let policy = ctr
            .spec
            .image_pull_policy
            .clone()
            .unwrap_or_else(|| "IfNotPresent".into());
        let present = self.images.contains_key(&ctr.image());
        let field = ctr.field_path();
        match pull_policy::decide(&policy, present) {
            Decision::UsePresent => {
                let e = pull_policy::already_present(&spec_image);
                Self::image_events(cx, key, vec![e], &field);
                self.stage(
                    cx,
                    key,
                    StageName::Pull,
                    Outcome::Present,
                    format!("{spec_image} already present"),
                );
                true
            }
            Decision::NeverPull => {
                ctr.view.state = ContainerState::Waiting {
                    reason: lifecycle::ERR_IMAGE_NEVER_PULL.into(),
                    message: Some(pull_policy::never_pull_message(&spec_image)),
                };
                if !ctr.waiting_announced {
                    ctr.waiting_announced = true;
                    Self::image_events(
                        cx,
                        key,
                        pull_policy::events_for_never_pull(&spec_image),
                        &field,
                    );
                    self.stage(
                        cx,
                        key,
                        StageName::Pull,
                        Outcome::Never,
                        format!("{spec_image} absent, imagePullPolicy Never"),
                    );
                    self.timer(cx, RESYNC_AFTER_FAILURE_MS, key, Step::Sync);
                }
                false
            }
            Decision::Pull => {
                let pull_key = backoff::pull_key(&uid, &spec_image);
                if self.pulls.in_backoff(&pull_key, cx.now) {
                    let image = ctr.image();
                    let error = pull_error(&self.registry.lookup(&image), &image)
                        .unwrap_or_else(|| pull_policy::not_found_error(&image));
                    let (reason, message) =
                        pull_policy::image_pull_backoff_waiting(&spec_image, Some(&error));
                    ctr.view.state = ContainerState::Waiting {
                        reason: reason.into(),
                        message: Some(message),
                    };
                    let ready_at = self.pulls.pull_ready_at(&pull_key).unwrap_or(cx.now);
                    if !ctr.waiting_announced {
                        ctr.waiting_announced = true;
                        Self::image_events(
                            cx,
                            key,
                            pull_policy::events_for_backoff(&spec_image),
                            &field,
                        );
                        self.stage(
                            cx,
                            key,
                            StageName::Pull,
                            Outcome::Backoff,
                            format!(
                                "{spec_image} ImagePullBackOff: next pull in {}",
                                klog::go_duration(until(cx.now, ready_at))
                            ),
                        );
                        self.timer(cx, until(cx.now, ready_at).max(1), key, Step::Sync);
                        self.timer(cx, RESYNC_AFTER_FAILURE_MS, key, Step::Sync);
                    }
                    return false;
                }
                ctr.pulling = true;
                ctr.pull_started = Some(cx.now);
                let image = ctr.image();
                w.first_pull.get_or_insert(cx.now);
                Self::image_events(cx, key, vec![pull_policy::pulling(&spec_image)], &field);
                let containerd = self.containerd();
                cx.message(&containerd, &Actor::Registry, format!("pull {image}"));
                let ms = self.registry.pull_ms(&image);
                self.timer(cx, ms, key, Step::PullDone(i));
                false
            }
        }
    }

    /// The pull of container `i`'s image ended.
    pub(super) fn pulled(&mut self, key: &str, i: usize, cx: &mut Cx<'_>) {
        let Some(w) = self.workers.get_mut(key) else {
            return;
        };
        let uid = w.names().2;
        let ctr = &mut w.ctrs[i];
        let started = ctr.pull_started.unwrap_or(cx.now);
        ctr.pulling = false;
        let spec_image = ctr.spec.image.clone().unwrap_or_default();
        let image = ctr.image();
        let field = ctr.field_path();
        let lookup = self.registry.lookup(&image);
        if let Some(error) = pull_error(&lookup, &image) {
            let why = short_reason(&lookup);
            let pull_key = backoff::pull_key(&uid, &spec_image);
            self.pulls.next(&pull_key, cx.now, cx.now);
            let (reason, message) = pull_policy::err_image_pull_waiting(&error);
            ctr.view.state = ContainerState::Waiting {
                reason: reason.into(),
                message: Some(message),
            };
            ctr.waiting_announced = false;
            cx.message(
                &Actor::Registry,
                &self.containerd(),
                format!("{image}: {why}"),
            );
            Self::image_events(
                cx,
                key,
                vec![
                    pull_policy::failed_to_pull(&spec_image, &error),
                    pull_policy::error_event(lifecycle::ERR_IMAGE_PULL),
                ],
                &field,
            );
            self.stage(
                cx,
                key,
                StageName::Pull,
                Outcome::Failed,
                format!("{spec_image} ErrImagePull: {why}"),
            );
            self.timer(cx, RESYNC_AFTER_FAILURE_MS, key, Step::Sync);
            return;
        }
        let digest = cx.rng.hex(64);
        let repo = image
            .rsplit_once(':')
            .map_or(image.as_str(), |(r, _)| r)
            .to_owned();
        self.images
            .insert(image.clone(), format!("{repo}@sha256:{digest}"));
        let size = self.registry.size_of(&image);
        let took = cx.now.as_millis() - started.as_millis();
        cx.message(
            &Actor::Registry,
            &self.containerd(),
            format!("{image} ({size} bytes)"),
        );
        Self::image_events(
            cx,
            key,
            vec![pull_policy::pulled(&spec_image, took, took, size)],
            &field,
        );
        self.stage(
            cx,
            key,
            StageName::Pull,
            Outcome::Pulled,
            format!("{spec_image} ({size} bytes) in {}", klog::go_duration(took)),
        );
        if let Some(w) = self.workers.get_mut(key) {
            w.last_pull = Some(cx.now);
        }
        self.timer(cx, 1, key, Step::Create(i));
    }
}
