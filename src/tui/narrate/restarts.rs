//! Narrations of the kubelet's stages when things go wrong or end: failed
//! pulls and their back-off (`pkg/kubelet/images/image_manager.go`), container
//! exits, kills and the crash-loop back-off (`kuberuntime_manager.go`,
//! `doBackOff`), probe results (`pkg/kubelet/prober/`), evictions
//! (`pkg/kubelet/eviction/`), and the terminal phases.

use super::{Narration, tr};
use crate::tui::lang::Lang;
use podflow_engine::trace::{Outcome, Stage, StageName};

/// The narration of a kubelet stage outcome this module explains, if it is one.
#[expect(
    clippy::too_many_lines,
    reason = "a table of bilingual sentences, one arm a case"
)]
pub fn outcome(s: &Stage, node: &str, pod: &str, lang: Lang) -> Option<Narration> {
    let d = s.detail.text();
    let first = d.split([' ', ':']).next().unwrap_or_default();
    let image = d.split(' ').next().unwrap_or_default();
    let n = |en_h: String, zh_h: String, lines: Vec<(String, String)>| {
        Some(Narration::new(
            tr(lang, en_h, zh_h),
            lines.into_iter().map(|(en, zh)| tr(lang, en, zh)).collect(),
        ))
    };
    match (s.stage, s.outcome) {
        (StageName::Pull, Outcome::Failed) => n(
            format!("{node} cannot pull {image}"),
            format!("{node} 无法拉取 {image}"),
            vec![
                {
                    let why = d.split_once("ErrImagePull: ").map_or(&*d, |(_, why)| why);
                    (
                        format!("The pull failed: {why} (Explain says what it means)."),
                        format!("拉取失败：{why}（解释面板说明其含义）。"),
                    )
                },
                (
                    "The container waits in ErrImagePull; the kubelet retries after the image pull back-off (10 s, doubling to 300 s).".into(),
                    "容器处于 ErrImagePull 等待状态；kubelet 会在镜像拉取退避（10 秒起，翻倍直到 300 秒）之后重试。".into(),
                ),
            ],
        ),
        (StageName::Pull, Outcome::Backoff) => n(
            format!("Back-off pulling {image}"),
            format!("拉取 {image} 进入退避"),
            vec![
                (format!("{d}."), format!("{d}。")),
                (
                    "ImagePullBackOff: the kubelet does not hammer the registry; each failure doubles the wait, up to 5 minutes.".into(),
                    "ImagePullBackOff：kubelet 不会不停地请求镜像仓库；每失败一次等待时间翻倍，最长 5 分钟。".into(),
                ),
            ],
        ),
        (StageName::Pull, Outcome::Never) => n(
            format!("{image} is not on {node}"),
            format!("{image} 不在 {node} 上"),
            vec![(
                "With imagePullPolicy Never the kubelet never asks the registry: the image must already be on the node, so the container waits in ErrImageNeverPull.".into(),
                "imagePullPolicy 为 Never 时 kubelet 从不访问镜像仓库：镜像必须已在节点上，所以容器停在 ErrImageNeverPull。".into(),
            )],
        ),
        (StageName::Container, Outcome::Exited) => n(
            format!("Container {d}"),
            format!("容器 {first} 已退出"),
            vec![(
                format!("{d}."),
                format!("{d}。"),
            ), (
                "The PLEG will report ContainerDied; unless the Pod is stopping or evicted, its restartPolicy and the container's exit code decide whether it restarts. Exit 137 is SIGKILL, and with reason OOMKilled the memory limit was exceeded; the Explain pane shows the code, the last output and (for an OOM kill) the memory against the limit.".into(),
                "PLEG 会报告 ContainerDied；除非 Pod 正在停止或已被驱逐，否则由它的 restartPolicy 和退出码决定是否重启。退出码 137 表示 SIGKILL，原因为 OOMKilled 时说明超出了内存上限；“原因”面板会列出退出码、最后的输出，以及（OOM 时）内存用量与上限的对比。".into(),
            )],
        ),
        (StageName::Container, Outcome::Backoff) => n(
            format!("CrashLoopBackOff in {pod}"),
            format!("{pod} 进入 CrashLoopBackOff"),
            vec![
                (format!("{d}."), format!("{d}。")),
                (
                    "The restart back-off starts at 10 s and doubles to 5 minutes; it resets once a container has run for 10 minutes. The Explain pane shows the exit, the restarts and when this back-off ends.".into(),
                    "重启退避从 10 秒开始，翻倍直到 5 分钟；容器连续运行 10 分钟后才会重置。“原因”面板会列出退出情况、重启次数和本次退避何时结束。".into(),
                ),
            ],
        ),
        (StageName::Container, Outcome::Killing) => n(
            format!("The kubelet stops container {first}"),
            format!("kubelet 停止容器 {first}"),
            vec![
                (format!("{d}."), format!("{d}。")),
                (
                    "SIGTERM first; a process that ignores it (a shell as PID 1 does) is killed with SIGKILL when the grace period ends.".into(),
                    "先发送 SIGTERM；忽略它的进程（作为 PID 1 的 shell 就会忽略）会在宽限期结束时被 SIGKILL 杀死。".into(),
                ),
            ],
        ),
        (StageName::Probe, Outcome::Failure) => n(
            format!("A probe of {pod} failed"),
            format!("{pod} 的探针失败"),
            vec![
                (format!("{d}."), format!("{d}。")),
                (
                    "After failureThreshold failures in a row, a liveness or startup probe gets the container killed and restarted; a readiness probe marks it not ready. The Explain pane counts the failures against the threshold.".into(),
                    "连续失败 failureThreshold 次后，存活或启动探针会让容器被杀死并重启；就绪探针则把它标记为未就绪。“原因”面板会列出失败次数与阈值。".into(),
                ),
            ],
        ),
        (StageName::Probe, Outcome::Success | Outcome::Unready) => n(
            format!("Probe result changed in {pod}"),
            format!("{pod} 的探针结果发生变化"),
            vec![(
                format!("{d}: the Ready and ContainersReady conditions follow."),
                format!("{d}：Ready 和 ContainersReady 条件随之更新。"),
            )],
        ),
        // `evictPod` (`pkg/kubelet/eviction/eviction_manager.go`): one Pod a
        // pass of the manager, every 10 s while the threshold is met.
        (StageName::Status, Outcome::Killing) => n(
            format!("The kubelet evicts {pod}"),
            format!("kubelet 驱逐 {pod}"),
            vec![
                (format!("{d}."), format!("{d}。")),
                (
                    "Node-pressure eviction: every 10 s the eviction manager compares memory.available with its hard threshold; when it is below, the manager ranks the node's Pods and evicts one. The Pod ends Failed with reason Evicted and is never restarted; the Explain pane shows the message and the ranking.".into(),
                    "节点压力驱逐：驱逐管理器每 10 秒把 memory.available 与硬阈值比较；低于阈值时，它给节点上的 Pod 排序并驱逐一个。该 Pod 以 Failed 结束，reason 为 Evicted，永远不会被重启；“原因”面板会列出消息和排序。".into(),
                ),
            ],
        ),
        (StageName::Status, phase @ (Outcome::Succeeded | Outcome::Failed)) => {
            let phase = if phase == Outcome::Succeeded {
                "Succeeded"
            } else {
                "Failed"
            };
            n(
                format!("{pod} is {phase}"),
                format!("{pod} 进入 {phase}"),
                vec![(
                    "Every container has terminated and the restartPolicy restarts none: the phase is final, and the kubelet stops the sandbox.".into(),
                    "所有容器都已终止，restartPolicy 也不再重启它们：这个阶段是最终状态，kubelet 会停止沙箱。".into(),
                )],
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podflow_engine::trace::Actor;

    fn stage(name: &str, outcome: &str, detail: &str) -> Stage {
        Stage::new(
            Actor::parse("kubelet/node-1").expect("an actor"),
            StageName::parse(name).expect("a stage name"),
            Outcome::parse(outcome).expect("an outcome"),
            detail,
        )
        .node("node-1".to_owned())
        .pod("default/web")
    }

    #[test]
    fn every_outcome_is_told_in_both_languages() {
        let rows = [
            (
                "pull",
                "failed",
                "nginx:doesnotexist ErrImagePull: not found",
                "node-1 cannot pull nginx:doesnotexist",
                "node-1 无法拉取 nginx:doesnotexist",
            ),
            (
                "pull",
                "backoff",
                "nginx:doesnotexist ImagePullBackOff: next pull in 10s",
                "Back-off pulling nginx:doesnotexist",
                "拉取 nginx:doesnotexist 进入退避",
            ),
            (
                "pull",
                "never",
                "app:v1 absent, imagePullPolicy Never",
                "app:v1 is not on node-1",
                "app:v1 不在 node-1 上",
            ),
            (
                "container",
                "exited",
                "app exited with code 1 (Error)",
                "Container app exited with code 1 (Error)",
                "容器 app 已退出",
            ),
            (
                "container",
                "backoff",
                "app CrashLoopBackOff: restart in 20s",
                "CrashLoopBackOff in default/web",
                "default/web 进入 CrashLoopBackOff",
            ),
            (
                "container",
                "killing",
                "app: SIGTERM, SIGKILL after 30s",
                "The kubelet stops container app",
                "kubelet 停止容器 app",
            ),
            (
                "probe",
                "failure",
                "app: Liveness probe failed: x",
                "A probe of default/web failed",
                "default/web 的探针失败",
            ),
            (
                "probe",
                "success",
                "app: readiness probe succeeded",
                "Probe result changed in default/web",
                "default/web 的探针结果发生变化",
            ),
            (
                "status",
                "killing",
                "evicted: memory.available 33Mi is below the hard threshold 100Mi",
                "The kubelet evicts default/web",
                "kubelet 驱逐 default/web",
            ),
            (
                "status",
                "succeeded",
                "phase Succeeded",
                "default/web is Succeeded",
                "default/web 进入 Succeeded",
            ),
        ];
        for (name, outcome_, detail, en, zh) in rows {
            let s = stage(name, outcome_, detail);
            let english = outcome(&s, "node-1", "default/web", Lang::En).unwrap();
            let chinese = outcome(&s, "node-1", "default/web", Lang::Zh).unwrap();
            assert!(english.headline.starts_with(en), "{english:?}");
            assert!(chinese.headline.starts_with(zh), "{chinese:?}");
            assert!(!english.body.is_empty() && english.body.len() == chinese.body.len());
        }
        assert!(outcome(&stage("pull", "pulled", "x"), "n", "p", Lang::En).is_none());
    }
}
