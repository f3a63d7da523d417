//! Explain a crash loop: which container exited, with which code and reason
//! (the kubelet's exit record), the last lines it wrote, how often it was
//! restarted (the stored status's `restartCount`), and the kubelet's restart
//! back-off: 10 s after the second exit, doubling to 5 min, reset after 10 min
//! of running (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `doBackOff`:
//! `back-off 20s restarting failed container=app pod=…`).

use podflow_engine::trace::{CrashBackoffDetail, Detail, ExitDetail, TraceRecord};
use ratatui::text::{Line, Span};

use super::fit::{Row, prose, row, styled_prose};
use super::kubelet::{container_status, exit_before, kubelet_stage, pod_name, seconds, stored_pod};
use super::labelled;
use crate::tui::lang::Lang;
use crate::tui::panes::PaneCx;
use crate::tui::panes::narration::clock;
use podflow_engine::store::Snapshot;

/// A crash-looping container, as the trace and the stored Pod tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashLoop {
    /// `NS/NAME`.
    pub pod: String,
    pub container: String,
    /// The latest exit.
    pub exit: ExitDetail,
    /// `restartCount` of the stored status.
    pub restarts: Option<i32>,
    /// The back-off that holds the restart, when the step is in one.
    pub backoff: Option<CrashBackoffDetail>,
    /// The stored status's waiting message (`back-off 20s restarting failed container=…`).
    pub waiting: Option<String>,
    /// Simulated milliseconds at the step.
    pub now_ms: u64,
}

/// The crash the failure at `anchor` (an exit or a back-off) is part of.
pub fn at(
    records: &[TraceRecord],
    anchor: usize,
    store: &Snapshot,
    now_ms: u64,
) -> Option<CrashLoop> {
    let stage = kubelet_stage(records.get(anchor)?)?;
    let pod = stage.extra().pod.clone()?;
    let (exit, backoff) = match &stage.detail {
        Detail::Exit(e) => (e.as_ref().clone(), None),
        Detail::CrashBackoff(b) => {
            let (_, exit) = exit_before(records, anchor, &pod, &b.container)?;
            (exit.clone(), Some(b.as_ref().clone()))
        }
        _ => return None,
    };
    let stored = stored_pod(store, &pod);
    let status = stored
        .as_deref()
        .and_then(|p| container_status(p, &exit.container));
    // The status the kubelet writes next says the back-off; until then the
    // stored one may tell of the last, which would contradict the trace.
    let waiting = status
        .and_then(|s| s.state.as_ref()?.waiting.as_ref())
        .filter(|w| w.reason.as_deref() == Some("CrashLoopBackOff"))
        .and_then(|w| w.message.clone())
        .filter(|m| {
            backoff
                .as_ref()
                .is_some_and(|b| m.starts_with(&format!("back-off {} ", b.delay)))
        });
    Some(CrashLoop {
        container: exit.container.clone(),
        restarts: status.map(|s| s.restart_count),
        pod,
        exit,
        backoff,
        waiting,
        now_ms,
    })
}

/// What an exit code says, in English and Chinese (`128 + n`: killed by signal n).
pub fn code_meaning(code: i32, reason: &str) -> (String, String) {
    match (code, reason) {
        (0, _) => (
            "it ended normally (Completed), but restartPolicy Always starts it again".into(),
            "它正常结束（Completed），但 restartPolicy 为 Always，于是又被启动".into(),
        ),
        (137, "OOMKilled") => (
            "128 + 9: SIGKILL from the kernel, over its memory limit".into(),
            "128 + 9：超出内存上限，被内核以 SIGKILL 杀死".into(),
        ),
        (137, _) => (
            "128 + 9: killed with SIGKILL".into(),
            "128 + 9：被 SIGKILL 杀死".into(),
        ),
        (143, _) => (
            "128 + 15: stopped with SIGTERM".into(),
            "128 + 15：被 SIGTERM 停止".into(),
        ),
        (126, _) => (
            "the command could not be run (not executable)".into(),
            "命令无法执行（没有执行权限）".into(),
        ),
        (127, _) => (
            "the command was not found in the image".into(),
            "镜像里找不到该命令".into(),
        ),
        (128, "StartError") => (
            "the container could not start: the program is not in the image".into(),
            "容器无法启动：镜像里没有这个程序".into(),
        ),
        (c, _) if c > 128 => (
            format!("128 + {}: killed by signal {}", c - 128, c - 128),
            format!("128 + {}：被信号 {} 杀死", c - 128, c - 128),
        ),
        _ => (
            "the program itself exited with an error".into(),
            "程序自己以错误退出".into(),
        ),
    }
}

/// The back-off line: the delay, when it ends, how it grows.
pub fn backoff_text(backoff: Option<&CrashBackoffDetail>, now_ms: u64, lang: Lang) -> String {
    let Some(b) = backoff else {
        return lang
            .pick(
                "none yet: the first exit is restarted at once, the next after 10s, doubling up to 5m",
                "尚无：第一次退出立即重启，之后等待 10s，每次翻倍，最多 5m",
            )
            .to_owned();
    };
    let at = clock(b.restart_at_ms);
    let left = b.restart_at_ms.saturating_sub(now_ms);
    match (lang, left) {
        (Lang::En, 0) => format!("{} (CrashLoopBackOff), over at {at}: restarting", b.delay),
        (Lang::En, _) => format!(
            "{} (CrashLoopBackOff): restart at {at}, in {}",
            b.delay,
            seconds(left)
        ),
        (Lang::Zh, 0) => format!("{}（CrashLoopBackOff），已于 {at} 结束：正在重启", b.delay),
        (Lang::Zh, _) => format!(
            "{}（CrashLoopBackOff）：{at} 重启，还有 {}",
            b.delay,
            seconds(left)
        ),
    }
}

/// The output lines, each a row ending with `…` when too long.
pub fn output_rows<'a>(exit: &ExitDetail, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let mut rows = vec![styled_prose(
        match lang {
            Lang::En => format!("last output of {}:", exit.container),
            Lang::Zh => format!("{} 最后的输出：", exit.container),
        },
        theme.component,
    )];
    if exit.tail.is_empty() {
        rows.push(styled_prose(
            lang.pick("  (none: it wrote nothing)", "  （无：它没有任何输出）"),
            theme.dim,
        ));
    }
    rows.extend(exit.tail.iter().map(|l| {
        row(Line::from(vec![
            Span::styled("  │ ", theme.dim),
            Span::styled(l.clone(), theme.text),
        ]))
    }));
    rows
}

/// The pane's lines for a crash loop.
pub fn lines<'a>(c: &CrashLoop, cx: &PaneCx<'_>) -> Vec<Row<'a>> {
    let (lang, theme) = (cx.lang, cx.theme);
    let e = &c.exit;
    let title = match lang {
        Lang::En => format!(
            "Why is {} restarting? {} exits with code {} ({})",
            c.pod, c.container, e.code, e.reason
        ),
        Lang::Zh => format!(
            "为什么 {} 不断重启？{} 以退出码 {}（{}）退出",
            c.pod, c.container, e.code, e.reason
        ),
    };
    let (en, zh) = code_meaning(e.code, &e.reason);
    let mut rows = vec![
        styled_prose(title, theme.active),
        prose(labelled(
            lang.pick("exit", "退出"),
            format!("{} ({}): {}", e.code, e.reason, lang.pick(&en, &zh)),
            theme.bad,
            cx,
        )),
        prose(labelled(
            lang.pick("back-off", "退避"),
            backoff_text(c.backoff.as_ref(), c.now_ms, lang),
            theme.text,
            cx,
        )),
    ];
    if let Some(n) = c.restarts {
        rows.push(prose(labelled(
            lang.pick("restarts", "重启次数"),
            match lang {
                Lang::En => format!("{n} (restartCount, as the kubelet last wrote the status)"),
                Lang::Zh => format!("{n}（restartCount，即 kubelet 最近一次写入的状态）"),
            },
            theme.text,
            cx,
        )));
    }
    rows.extend(output_rows(e, cx));
    if let Some(message) = &c.waiting {
        rows.push(prose(labelled(
            lang.pick("status", "状态"),
            message.clone(),
            theme.dim,
            cx,
        )));
    }
    rows.push(styled_prose(
        match lang {
            Lang::En => format!(
                "Next: kubectl logs {} -c {} --previous shows the crashed run's output; fix the command, its arguments or the image. Each crash doubles the wait (10s up to 5m); 10 minutes of running resets it.",
                pod_name(&c.pod),
                c.container
            ),
            Lang::Zh => format!(
                "下一步：kubectl logs {} -c {} --previous 可查看崩溃那次运行的输出；修正命令、参数或镜像。每崩溃一次等待翻倍（10s 到 5m）；持续运行 10 分钟后重置。",
                pod_name(&c.pod),
                c.container
            ),
        },
        theme.dim,
    ));
    rows
}
