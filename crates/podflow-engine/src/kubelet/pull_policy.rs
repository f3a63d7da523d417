//! The image manager's decision and its words (`pkg/kubelet/images/image_manager.go`,
//! `EnsureImageExists`, `pullImage`, `evalCRIPullErr`; event reasons from
//! `pkg/kubelet/events/event.go`; the `Error: ...` event from `startContainer` in
//! `pkg/kubelet/kuberuntime/kuberuntime_container.go`). The API server has already
//! defaulted `imagePullPolicy` (`Always` for `:latest` or no tag, else `IfNotPresent`).
//!
//! `KubeletEnsureSecretPulledImages` is on by default, so a present image is
//! announced as "already present on machine and can be accessed by the pod".

use crate::kubelet::klog;

/// What the image manager does for one container's image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The image is on the node and the policy lets the kubelet use it.
    UsePresent,
    /// Pull it (policy `Always`, or `IfNotPresent` and absent).
    Pull,
    /// Absent with policy `Never`: the container waits with `ErrImageNeverPull`.
    NeverPull,
}

/// `EnsureImageExists`' choice for `policy` (`Always`, `IfNotPresent`, `Never`).
pub fn decide(policy: &str, present: bool) -> Decision {
    match (policy, present) {
        ("Always", _) => Decision::Pull,
        ("Never", false) => Decision::NeverPull,
        (_, true) => Decision::UsePresent,
        (_, false) => Decision::Pull,
    }
}

/// One event the image manager (or `startContainer`) records on the container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageEvent {
    /// `Warning` when true, else `Normal`.
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
}

fn normal(reason: &'static str, message: String) -> ImageEvent {
    ImageEvent {
        warning: false,
        reason,
        message,
    }
}

fn warning(reason: &'static str, message: String) -> ImageEvent {
    ImageEvent {
        warning: true,
        reason,
        message,
    }
}

/// `Pulled`: the image is already on the node.
pub fn already_present(image: &str) -> ImageEvent {
    normal(
        "Pulled",
        format!(
            "Container image \"{image}\" already present on machine and can be accessed by the pod"
        ),
    )
}

/// `Pulling`: a pull starts.
pub fn pulling(image: &str) -> ImageEvent {
    normal("Pulling", format!("Pulling image \"{image}\""))
}

/// `Pulled`: the pull succeeded; durations in ms (truncated to ms as upstream does).
pub fn pulled(image: &str, pull_ms: u64, total_ms: u64, size_bytes: u64) -> ImageEvent {
    normal(
        "Pulled",
        format!(
            "Successfully pulled image \"{image}\" in {} ({} including waiting). Image size: {size_bytes} bytes.",
            klog::go_duration(pull_ms),
            klog::go_duration(total_ms)
        ),
    )
}

/// The error containerd returns for a reference the registry does not have
/// (a gRPC `NotFound` from the CRI). `normalized` is the image as containerd names it.
pub fn not_found_error(normalized: &str) -> String {
    format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image \"{normalized}\": failed to resolve reference \"{normalized}\": {normalized}: not found"
    )
}

/// `Failed` (Warning): the pull failed with `error`.
pub fn failed_to_pull(image: &str, error: &str) -> ImageEvent {
    warning(
        "Failed",
        format!("Failed to pull image \"{image}\": {error}"),
    )
}

/// `Failed` (Warning) from `startContainer`: `Error: ErrImagePull`, `Error: ImagePullBackOff`, ...
pub fn error_event(waiting_reason: &str) -> ImageEvent {
    warning("Failed", format!("Error: {waiting_reason}"))
}

/// `BackOff` (Normal): the pull is in back-off.
pub fn back_off(image: &str) -> ImageEvent {
    normal("BackOff", format!("Back-off pulling image \"{image}\""))
}

/// `ErrImageNeverPull` (Warning): absent with policy `Never`.
pub fn never_pull(image: &str) -> ImageEvent {
    warning("ErrImageNeverPull", never_pull_message(image))
}

/// The waiting message (and event message) of `ErrImageNeverPull`.
pub fn never_pull_message(image: &str) -> String {
    format!("Container image \"{image}\" is not present with pull policy of Never")
}

/// The waiting state after a failed pull: reason `ErrImagePull`, message the error.
pub fn err_image_pull_waiting(error: &str) -> (&'static str, String) {
    ("ErrImagePull", error.to_owned())
}

/// The waiting state during the back-off: reason `ImagePullBackOff`, message
/// `Back-off pulling image "X": ErrImagePull: <the last error>`.
pub fn image_pull_backoff_waiting(image: &str, last_error: Option<&str>) -> (&'static str, String) {
    let base = format!("Back-off pulling image \"{image}\"");
    let message = match last_error {
        Some(e) => format!("{base}: ErrImagePull: {e}"),
        None => base,
    };
    ("ImagePullBackOff", message)
}

/// The events of one image step, in the order the kubelet records them.
pub fn events_for_failed_pull(image: &str, error: &str) -> Vec<ImageEvent> {
    vec![
        pulling(image),
        failed_to_pull(image, error),
        error_event("ErrImagePull"),
    ]
}

/// The events while the pull is in back-off.
pub fn events_for_backoff(image: &str) -> Vec<ImageEvent> {
    vec![back_off(image), error_event("ImagePullBackOff")]
}

/// The events when the image is absent and the policy is `Never`.
pub fn events_for_never_pull(image: &str) -> Vec<ImageEvent> {
    vec![never_pull(image), error_event("ErrImageNeverPull")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions() {
        // image_manager_test.go, TestParallelPuller / pullerTestCases: policy x presence.
        let rows = [
            ("Always", true, Decision::Pull),
            ("Always", false, Decision::Pull),
            ("IfNotPresent", true, Decision::UsePresent),
            ("IfNotPresent", false, Decision::Pull),
            ("Never", true, Decision::UsePresent),
            ("Never", false, Decision::NeverPull),
        ];
        for (policy, present, want) in rows {
            assert_eq!(decide(policy, present), want, "{policy} present={present}");
        }
    }

    #[test]
    fn messages_as_upstream_words_them() {
        assert_eq!(
            already_present("busybox:1.36").message,
            "Container image \"busybox:1.36\" already present on machine and can be accessed by the pod"
        );
        assert_eq!(pulling("nginx").message, "Pulling image \"nginx\"");
        assert_eq!(
            pulled("nginx:1.27", 2500, 2500, 72_000_000).message,
            "Successfully pulled image \"nginx:1.27\" in 2.5s (2.5s including waiting). Image size: 72000000 bytes."
        );
        let error = not_found_error("docker.io/library/nginx:doesnotexist");
        assert_eq!(
            error,
            "rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:doesnotexist\": failed to resolve reference \"docker.io/library/nginx:doesnotexist\": docker.io/library/nginx:doesnotexist: not found"
        );
        let events = events_for_failed_pull("nginx:doesnotexist", &error);
        assert_eq!(
            events[1].message,
            format!("Failed to pull image \"nginx:doesnotexist\": {error}")
        );
        assert_eq!((events[1].warning, events[1].reason), (true, "Failed"));
        assert_eq!(events[2].message, "Error: ErrImagePull");
        let backoff = events_for_backoff("nginx:doesnotexist");
        assert_eq!(
            (
                backoff[0].warning,
                backoff[0].reason,
                backoff[0].message.as_str()
            ),
            (
                false,
                "BackOff",
                "Back-off pulling image \"nginx:doesnotexist\""
            )
        );
        assert_eq!(backoff[1].message, "Error: ImagePullBackOff");
        let never = events_for_never_pull("app:dev");
        assert_eq!(
            (never[0].reason, never[0].message.as_str()),
            (
                "ErrImageNeverPull",
                "Container image \"app:dev\" is not present with pull policy of Never"
            )
        );
        assert_eq!(never[1].message, "Error: ErrImageNeverPull");
    }

    #[test]
    fn waiting_states() {
        let error = not_found_error("docker.io/library/nginx:nope");
        assert_eq!(
            err_image_pull_waiting(&error),
            ("ErrImagePull", error.clone())
        );
        assert_eq!(
            image_pull_backoff_waiting("nginx:nope", Some(&error)),
            (
                "ImagePullBackOff",
                format!("Back-off pulling image \"nginx:nope\": ErrImagePull: {error}")
            )
        );
        assert_eq!(
            image_pull_backoff_waiting("nginx:nope", None).1,
            "Back-off pulling image \"nginx:nope\""
        );
    }
}
