//! Explain at a failed image pull: which image, what the registry (or the
//! name lookup) answered, what that means for the name the Pod wrote, and the
//! kubelet's back-off before the next pull (10 s, doubling to 5 min;
//! `pkg/kubelet/images/image_manager.go`, `EnsureImageExists`).

use podflow_engine::trace::{Outcome, Record, StageName, TraceRecord};

/// How far back a pull failure's `Failed` event is looked for.
const LOOK_BACK: usize = 400;

/// Why a pull failed, as containerd's error says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    NoRepository,
    NoTag,
    NoHost,
    Refused,
    Other,
}

impl Cause {
    fn of(error: &str) -> Cause {
        if error.contains("pull access denied") {
            Cause::NoRepository
        } else if error.contains("no such host") {
            Cause::NoHost
        } else if error.contains("connection refused") {
            Cause::Refused
        } else if error.ends_with("not found") {
            Cause::NoTag
        } else {
            Cause::Other
        }
    }

    /// What it means, in English and Chinese.
    pub fn meaning(self) -> (&'static str, &'static str) {
        match self {
            Cause::NoRepository => (
                "The registry has no repository of that name (or wants credentials): check the name for a typo (ngnix → nginx); a private image needs imagePullSecrets.",
                "镜像仓库里没有这个名字的存储库（或需要凭据）：检查名字是否拼错（ngnix → nginx）；私有镜像需要 imagePullSecrets。",
            ),
            Cause::NoTag => (
                "The repository exists but has no such tag: check the tag after the colon.",
                "存储库存在，但没有这个标签：检查冒号后面的标签。",
            ),
            Cause::NoHost => (
                "The registry's host name does not resolve: check the part of the name before the first slash.",
                "镜像仓库的主机名无法解析：检查名字中第一个斜杠之前的部分。",
            ),
            Cause::Refused => (
                "Nothing listens at the registry's address: is the registry running, on that port?",
                "镜像仓库的地址上没有服务在监听：仓库是否在运行、端口是否正确？",
            ),
            Cause::Other => ("The pull failed.", "拉取失败。"),
        }
    }
}

/// A failed pull, as the trace tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullFailure {
    pub pod: String,
    /// The image as the Pod wrote it.
    pub image: String,
    /// containerd's error, from the kubelet's `Failed` event.
    pub error: String,
    pub cause: Cause,
    /// `next pull in 20s`, when the step is the back-off.
    pub backoff: Option<String>,
}

/// The pull failure the current step is about: a `pull` stage that failed or
/// backs off, with the `Failed to pull image` event before it.
pub fn at(records: &[TraceRecord]) -> Option<PullFailure> {
    let (current, _) = records.split_last()?;
    let Record::Stage(stage) = &current.body else {
        return None;
    };
    if stage.stage != StageName::Pull
        || !matches!(stage.outcome, Outcome::Failed | Outcome::Backoff)
    {
        return None;
    }
    let pod = stage.extra().pod.clone().unwrap_or_default();
    let floor = records.len().saturating_sub(LOOK_BACK);
    let (image, error) = records[floor..].iter().rev().find_map(|r| match &r.body {
        Record::Event(e) if e.reason == "Failed" && e.source == "kubelet" => {
            let rest = e.message.strip_prefix("Failed to pull image \"")?;
            let (image, error) = rest.split_once("\": ")?;
            let name = e.object.namespace.as_deref().map_or_else(
                || e.object.name.clone(),
                |ns| format!("{ns}/{}", e.object.name),
            );
            (pod.is_empty() || pod == name || pod.ends_with(&format!("/{}", e.object.name)))
                .then(|| (image.to_owned(), error.to_owned()))
        }
        _ => None,
    })?;
    let detail = stage.detail.text();
    let backoff = detail
        .split_once("ImagePullBackOff: ")
        .map(|(_, next)| next.to_owned());
    Some(PullFailure {
        pod,
        cause: Cause::of(&error),
        image,
        error,
        backoff,
    })
}
