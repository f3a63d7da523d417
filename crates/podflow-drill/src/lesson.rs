//! A drill as a lesson: its cluster (the nodes and the faults' objects), the
//! team's manifests as the lesson's files, a command step per setup command,
//! two minutes of the cluster (`wait 2m`), a narration that states the
//! symptoms, and a goal per fault. Written as JSON (which is YAML) and read by the lesson loader, so
//! a drill is exactly what a lesson file could say.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::faults::Fault;
use crate::nodes::Nodes;
use crate::{Level, Say};
use podflow_lesson::Lesson;

fn text(say: &Say) -> Value {
    json!({"en": say.en, "zh": say.zh})
}

/// The drill's cluster file: the nodes, then the faults' objects.
pub fn cluster(faults: &[Fault], nodes: &Nodes) -> String {
    let mut docs = nodes.yaml();
    for fault in faults {
        docs.extend(fault.cluster.iter().cloned());
    }
    docs.join("---\n")
}

/// The lesson's JSON.
pub fn document(seed: u64, level: Level, faults: &[Fault], nodes: &Nodes) -> Value {
    let n = level.number();
    let mut files = serde_json::Map::new();
    for fault in faults {
        for (name, body) in &fault.files {
            files.insert(name.clone(), Value::String(body.clone()));
        }
    }
    let mut steps = Vec::new();
    let mut first = true;
    for fault in faults {
        for setup in &fault.setup {
            let mut say = setup.text.clone();
            if first {
                say.en = format!(
                    "Drill {seed}, level {n}. You are on call. {} Watch what happens, then find the cause and fix it.",
                    say.en
                );
                say.zh = format!(
                    "演练 {seed}，第 {n} 级。你在值班。{}观察发生了什么，然后找到原因并修复。",
                    say.zh
                );
                first = false;
            }
            steps.push(json!({"command": {"run": setup.run, "text": text(&say)}}));
        }
    }
    // A command as well as the narration's `until:`: the run may go idle
    // sooner, and a node's grace period or a probe's failures need the time
    // to pass; the narration then shows the cluster two minutes on.
    steps.push(json!({"command": {"run": "wait 2m", "text": {
        "en": "Two minutes pass.",
        "zh": "两分钟过去了。",
    }}}));
    let (mut en, mut zh) = (
        String::from("Something is wrong. "),
        String::from("出问题了。"),
    );
    for (i, fault) in faults.iter().enumerate() {
        if faults.len() > 1 {
            let _ = write!(en, "({}) ", i + 1);
            let _ = write!(zh, "（{}）", i + 1);
        }
        en.push_str(&fault.symptom.en);
        en.push(' ');
        zh.push_str(&fault.symptom.zh);
    }
    en.push_str("Find the cause with the panes and the : bar (get, describe, logs), then fix it; :wait 1m lets the cluster settle after a fix. Hints (i) cost points; s shows the cause and a fix.");
    zh.push_str("借助各个面板和 : 命令栏（get、describe、logs）找到原因，然后修复；修复之后用 :wait 1m 让集群稳定下来。提示（i）会扣分；s 显示原因和一种修复方法。");
    steps.push(json!({"narrate": {"until": "2m", "text": {"en": en, "zh": zh}}}));
    for fault in faults {
        let mut goal = json!({
            "task": {"en": format!("{} {}", fault.symptom.en, fault.task.en),
                     "zh": format!("{}{}", fault.symptom.zh, fault.task.zh)},
            "check": fault.check,
            "hints": fault.hints.iter().map(text).collect::<Vec<_>>(),
            // Probes and back-offs go on after the run is idle: a minute
            // lets the fix show (the student types the same `:wait 1m`).
            "solution": fault.fix.iter().cloned().chain(["wait 1m".to_owned()]).collect::<Vec<_>>(),
            "cause": text(&fault.cause),
        });
        if let Some((name, _)) = fault.files.first() {
            goal["edit"] = Value::String(name.clone());
        }
        steps.push(json!({ "goal": goal }));
    }
    let symptoms: Vec<&str> = faults.iter().map(|f| f.symptom.en.as_str()).collect();
    let symptoms_zh: Vec<&str> = faults.iter().map(|f| f.symptom.zh.as_str()).collect();
    json!({
        "id": crate::id(seed, level),
        "title": {"en": format!("seed {seed} · level {n}"), "zh": format!("种子 {seed} · 第 {n} 级")},
        "summary": {"en": symptoms.join(" "), "zh": symptoms_zh.concat()},
        "minutes": 5 * u32::from(n),
        "cluster": {"yaml": cluster(faults, nodes)},
        "files": files,
        "steps": steps,
    })
}

/// The drill's lesson.
pub fn build(seed: u64, level: Level, faults: &[Fault], nodes: &Nodes) -> Lesson {
    let doc = document(seed, level, faults, nodes);
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    // The document is built here, from fixed shapes: a failure is podflow's bug.
    Lesson::parse(&crate::id(seed, level), &text, None)
        .unwrap_or_else(|e| panic!("drill {seed} level {}: {e}", level.number()))
}
