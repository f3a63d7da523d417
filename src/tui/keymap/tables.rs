//! The key tables, one a screen or a part of one: each key, the action it
//! asks for, and its help in English and Chinese.

use crossterm::event::KeyCode;

use super::{Binding, Key, Table};
use crate::tui::action::Action;
use crate::tui::lesson::LessonKey;
use crate::tui::lesson::editor::EditKey;

const fn key(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

const fn lesson(key: LessonKey) -> Action {
    Action::Lesson(key)
}

/// `q` and Ctrl-C, on every screen but the bars and the editor (which type `q`).
const QUIT: Binding = Binding {
    keys: &[(ch('q'), Action::Quit), (ctrl('c'), Action::Quit)],
    help: (
        "quit (asks first when typed commands or edits would be lost)",
        "退出（会丢失输入的命令或编辑时先询问）",
    ),
};

const HELP: Binding = Binding {
    keys: &[(ch('?'), Action::ToggleHelp)],
    help: ("this help (↑↓ scroll it)", "本帮助（↑↓ 滚动）"),
};

const LANG: Binding = Binding {
    keys: &[(ch('L'), Action::ToggleLang)],
    help: ("English / 中文", "English / 中文"),
};

const THEME: Binding = Binding {
    keys: &[(ch('t'), Action::NextTheme)],
    help: (
        "theme: dark, light, high contrast",
        "主题：深色、浅色、高对比度",
    ),
};

/// The panes: the sandbox's trace, and beneath a lesson or a served cluster.
pub const PANES: Table = Table {
    title: ("The trace and its panes", "轨迹与面板"),
    bindings: &[
        Binding {
            keys: &[(ch(' '), Action::TogglePlay)],
            help: ("play / pause", "播放 / 暂停"),
        },
        Binding {
            keys: &[
                (key(KeyCode::Right), Action::StepForward),
                (ch('l'), Action::StepForward),
                (key(KeyCode::Left), Action::StepBack),
                (ch('h'), Action::StepBack),
            ],
            help: ("next / previous step", "下一步 / 上一步"),
        },
        Binding {
            keys: &[(ch(']'), Action::NextPhase), (ch('['), Action::PrevPhase)],
            help: (
                "next / previous phase (where the acting component changes)",
                "下一阶段 / 上一阶段（执行的组件改变处）",
            ),
        },
        Binding {
            keys: &[
                (key(KeyCode::Home), Action::First),
                (key(KeyCode::End), Action::Last),
                (ch('G'), Action::Last),
            ],
            help: ("first / last step", "第一步 / 最后一步"),
        },
        Binding {
            keys: &[(ch('g'), Action::OpenJumps)],
            help: (
                "jump list: each command, each Pod's scheduling, each failure",
                "跳转列表：每条命令、每个 Pod 的调度、每次失败",
            ),
        },
        Binding {
            keys: &[(ch('H'), Action::ToggleHeartbeats)],
            help: (
                "heartbeats (Lease, node status): folded / each",
                "心跳（Lease 续约、节点状态）：逐条显示 / 合为一步",
            ),
        },
        Binding {
            keys: &[
                (ch('+'), Action::Faster),
                (ch('='), Action::Faster),
                (ch('-'), Action::Slower),
            ],
            help: (
                "faster / slower (0.25× to 16×)",
                "加速 / 减速（0.25× 到 16×）",
            ),
        },
        Binding {
            keys: &[
                (key(KeyCode::Tab), Action::FocusNext),
                (key(KeyCode::BackTab), Action::FocusPrev),
            ],
            help: (
                "focus the next / previous pane",
                "切换到下一个 / 上一个面板",
            ),
        },
        Binding {
            keys: &[(ch('z'), Action::ToggleZoom)],
            help: ("zoom the focused pane", "放大当前面板"),
        },
        Binding {
            keys: &[
                (key(KeyCode::Up), Action::Select(-1)),
                (key(KeyCode::Down), Action::Select(1)),
                (ch('j'), Action::Select(1)),
                (ch('k'), Action::Select(-1)),
            ],
            help: ("select / scroll in the pane", "在面板中选择 / 滚动"),
        },
        Binding {
            keys: &[
                (key(KeyCode::PageDown), Action::Page(1)),
                (key(KeyCode::PageUp), Action::Page(-1)),
            ],
            help: ("scroll the zoomed pane a page", "放大的面板翻一页"),
        },
        Binding {
            keys: &[(ch('/'), Action::OpenFilter)],
            help: ("filter the focused pane", "过滤当前面板"),
        },
        Binding {
            keys: &[(ctrl('u'), Action::Clear)],
            help: (
                "clear the focused pane's filter (or every filter)",
                "清除当前面板的过滤（或全部过滤）",
            ),
        },
        Binding {
            keys: &[(ch(':'), Action::OpenCommand)],
            help: (
                "a kubectl command (get, describe, logs, exec, apply, run, rollout…)",
                "kubectl 命令（get、describe、logs、exec、apply、run、rollout…）",
            ),
        },
        LANG,
        THEME,
        HELP,
        Binding {
            keys: &[(key(KeyCode::Esc), Action::Cancel)],
            help: (
                "close the help, the zoom or the pane's filter",
                "关闭帮助、放大或面板的过滤",
            ),
        },
        QUIT,
    ],
};

/// A lesson's keys, over the panes'.
pub const LESSON: Table = Table {
    title: ("This lesson", "本课"),
    bindings: &[
        Binding {
            keys: &[
                (ch('n'), lesson(LessonKey::NextStep)),
                (ch('p'), lesson(LessonKey::PrevStep)),
            ],
            help: (
                "next / previous lesson step (n asks first on an unanswered quiz or an unreached goal)",
                "下一个 / 上一个课程步骤（测验未答或目标未达成时 n 先询问）",
            ),
        },
        Binding {
            keys: &[
                (key(KeyCode::PageDown), Action::Page(1)),
                (key(KeyCode::PageUp), Action::Page(-1)),
            ],
            help: (
                "next / previous lesson step (a clicker's keys); a zoomed pane: scroll it a page",
                "下一个 / 上一个课程步骤（翻页笔的按键）；面板放大时：翻一页",
            ),
        },
        Binding {
            keys: &[
                (key(KeyCode::Up), lesson(LessonKey::Scroll(-1))),
                (key(KeyCode::Down), lesson(LessonKey::Scroll(1))),
                (ch('k'), lesson(LessonKey::Scroll(-1))),
                (ch('j'), lesson(LessonKey::Scroll(1))),
            ],
            help: (
                "scroll a step longer than its panel (↓ 3 more); else select / scroll in the focused pane",
                "滚动超出面板的课程步骤（↓ 还有 3 行）；否则在当前面板中选择 / 滚动",
            ),
        },
        Binding {
            keys: &[
                (ch('1'), lesson(LessonKey::Choose(1))),
                (ch('2'), lesson(LessonKey::Choose(2))),
                (ch('3'), lesson(LessonKey::Choose(3))),
                (ch('4'), lesson(LessonKey::Choose(4))),
                (ch('5'), lesson(LessonKey::Choose(5))),
                (ch('6'), lesson(LessonKey::Choose(6))),
                (ch('7'), lesson(LessonKey::Choose(7))),
                (ch('8'), lesson(LessonKey::Choose(8))),
                (ch('9'), lesson(LessonKey::Choose(9))),
            ],
            help: ("answer a quiz", "回答测验"),
        },
        Binding {
            keys: &[(key(KeyCode::Enter), lesson(LessonKey::Confirm))],
            help: (
                "answer a quiz with several right choices",
                "提交多选测验的答案",
            ),
        },
        Binding {
            keys: &[(ch('i'), lesson(LessonKey::Hint))],
            help: ("a hint of the goal", "目标的提示"),
        },
        Binding {
            keys: &[(ch('s'), lesson(LessonKey::Solution))],
            help: ("the goal's solution", "目标的答案"),
        },
        Binding {
            keys: &[(ch('r'), lesson(LessonKey::Reset))],
            help: (
                "reset the cluster to the goal's start",
                "把集群重置到目标开始时",
            ),
        },
        Binding {
            keys: &[(ch('e'), lesson(LessonKey::Edit))],
            help: (
                "edit the lesson's files (Ctrl-S save, Ctrl-N next file, Esc close)",
                "编辑课程文件（Ctrl-S 保存，Ctrl-N 下一个文件，Esc 关闭）",
            ),
        },
        Binding {
            keys: &[(key(KeyCode::Esc), Action::Cancel)],
            help: (
                "close the help, the zoom or the pane's filter; else back to the lesson picker",
                "关闭帮助、放大或面板的过滤；否则回到课程选择",
            ),
        },
    ],
};

/// Presenter mode's keys (`--present`), over the lesson's and the panes'.
pub const PRESENTER: Table = Table {
    title: ("Presenter mode", "演示模式"),
    bindings: &[
        Binding {
            keys: &[(ch(' '), Action::TogglePlay)],
            help: (
                "play to the next step marker, then pause",
                "播放到下一个步骤标记后暂停",
            ),
        },
        Binding {
            keys: &[(ch('b'), Action::Blank)],
            help: ("blank the screen (any key returns)", "黑屏（按任意键返回）"),
        },
        Binding {
            keys: &[
                (key(KeyCode::PageDown), Action::Page(1)),
                (key(KeyCode::PageUp), Action::Page(-1)),
            ],
            help: (
                "next / previous marker (a clicker's keys): the lesson step, else the phase",
                "下一个 / 上一个标记（翻页笔的键）：课程步骤，否则阶段",
            ),
        },
        Binding {
            keys: &[(ch('N'), Action::ToggleNotes)],
            help: (
                "presenter notes in the status bar / the step's title",
                "状态栏显示演讲者备注 / 步骤标题",
            ),
        },
        Binding {
            keys: &[(ch('d'), Action::ToggleDense)],
            help: (
                "show / hide the dense panes (watch, objects, logs)",
                "显示 / 隐藏细节面板（watch、对象、日志）",
            ),
        },
    ],
};

/// A served cluster's keys (`podflow serve`), over the panes'.
pub const LIVE: Table = Table {
    title: ("Served cluster", "服务中的集群"),
    bindings: &[
        Binding {
            keys: &[(ch(' '), Action::TogglePlay)],
            help: (
                "play (time follows the clock) / pause (requests wait where they are)",
                "播放（时间随时钟走）/ 暂停（请求停在原处）",
            ),
        },
        Binding {
            keys: &[
                (key(KeyCode::Right), Action::StepForward),
                (ch('l'), Action::StepForward),
                (key(KeyCode::Left), Action::StepBack),
                (ch('h'), Action::StepBack),
            ],
            help: (
                "next / previous step; → at the last step: the next engine event",
                "下一步 / 上一步；在最后一步按 →：引擎的下一个事件",
            ),
        },
    ],
};

/// The jump list (`g`).
pub const JUMPS: Table = Table {
    title: ("Jump list", "跳转列表"),
    bindings: &[
        Binding {
            keys: &[
                (key(KeyCode::Up), Action::Select(-1)),
                (key(KeyCode::Down), Action::Select(1)),
                (ch('k'), Action::Select(-1)),
                (ch('j'), Action::Select(1)),
                (key(KeyCode::PageDown), Action::Page(1)),
                (key(KeyCode::PageUp), Action::Page(-1)),
                (key(KeyCode::Home), Action::First),
                (key(KeyCode::End), Action::Last),
            ],
            help: ("choose a moment", "选择一个时刻"),
        },
        Binding {
            keys: &[(key(KeyCode::Enter), Action::Submit)],
            help: ("go there", "跳到那里"),
        },
        Binding {
            keys: &[
                (key(KeyCode::Esc), Action::Cancel),
                (ch('g'), Action::OpenJumps),
            ],
            help: ("close the list", "关闭列表"),
        },
        LANG,
        HELP,
        QUIT,
    ],
};

/// The lesson picker.
pub const PICKER: Table = Table {
    title: ("Lesson picker", "课程选择"),
    bindings: &[
        Binding {
            keys: &[
                (key(KeyCode::Up), Action::Select(-1)),
                (key(KeyCode::Down), Action::Select(1)),
                (ch('j'), Action::Select(1)),
                (ch('k'), Action::Select(-1)),
            ],
            help: ("choose a lesson", "选择一课"),
        },
        Binding {
            keys: &[
                (key(KeyCode::Enter), lesson(LessonKey::Confirm)),
                (ch('n'), lesson(LessonKey::NextStep)),
            ],
            help: ("open it", "打开"),
        },
        Binding {
            keys: &[(key(KeyCode::Esc), Action::Cancel)],
            help: (
                "close the help; else back to the open lesson, or to the sandbox",
                "关闭帮助；否则回到打开的课程，或进入沙盒",
            ),
        },
        LANG,
        THEME,
        HELP,
        QUIT,
    ],
};

/// The `:` command bar and the `/` filter: every other character types.
pub const BAR: Table = Table {
    title: ("Command bar and filter", "命令栏与过滤"),
    bindings: &[
        Binding {
            keys: &[(key(KeyCode::Enter), Action::Submit)],
            help: ("run the command / keep the filter", "执行命令 / 保留过滤"),
        },
        Binding {
            keys: &[(key(KeyCode::Backspace), Action::Backspace)],
            help: ("delete a character", "删除一个字符"),
        },
        Binding {
            keys: &[(ctrl('u'), Action::Clear)],
            help: ("clear the line", "清空这一行"),
        },
        Binding {
            keys: &[(key(KeyCode::Esc), Action::Cancel)],
            help: ("close the bar", "关闭输入栏"),
        },
        Binding {
            keys: &[(ctrl('c'), Action::Quit)],
            help: (
                "quit (asks first when the line holds text)",
                "退出（输入栏有文字时先询问）",
            ),
        },
    ],
};

/// The lesson's editor: every other key types or moves the cursor.
pub const EDITOR: Table = Table {
    title: ("Editor", "编辑器"),
    bindings: &[
        Binding {
            keys: &[(ctrl('s'), Action::Edit(EditKey::Save))],
            help: (
                "save (the `:` bar's -f reads it)",
                "保存（`:` 栏的 -f 会读取）",
            ),
        },
        Binding {
            keys: &[(ctrl('n'), Action::Edit(EditKey::NextFile))],
            help: ("the lesson's next file", "课程的下一个文件"),
        },
        Binding {
            keys: &[(key(KeyCode::Esc), Action::Edit(EditKey::Close))],
            help: (
                "close (e opens it again, unsaved edits kept)",
                "关闭（按 e 重新打开，未保存的修改仍在）",
            ),
        },
        Binding {
            keys: &[(ctrl('c'), Action::Quit)],
            help: (
                "quit (asks first when edits are unsaved)",
                "退出（有未保存的修改时先询问）",
            ),
        },
    ],
};

/// A y/n question: any other key answers no.
pub const QUESTION: Table = Table {
    title: ("Question", "询问"),
    bindings: &[
        Binding {
            keys: &[
                (ch('y'), Action::Answer(true)),
                (ch('Y'), Action::Answer(true)),
            ],
            help: ("yes", "是"),
        },
        Binding {
            keys: &[(ctrl('c'), Action::Quit)],
            help: ("quit", "退出"),
        },
    ],
};
