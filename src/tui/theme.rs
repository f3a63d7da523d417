//! Colours and styles: dark, light, and high contrast for projectors;
//! `NO_COLOR` (<https://no-color.org>) turns every colour off.

use ratatui::style::{Color, Modifier, Style};

/// The themes podflow has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
    HighContrast,
}

impl ThemeName {
    /// The next theme, for the theme key.
    #[must_use]
    pub fn next(self) -> ThemeName {
        match self {
            ThemeName::Dark => ThemeName::Light,
            ThemeName::Light => ThemeName::HighContrast,
            ThemeName::HighContrast => ThemeName::Dark,
        }
    }

    /// The theme's name as the status bar shows it.
    pub fn label(self) -> &'static str {
        match self {
            ThemeName::Dark => "dark",
            ThemeName::Light => "light",
            ThemeName::HighContrast => "contrast",
        }
    }
}

/// Every style the panes use, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub name: ThemeName,
    /// Ordinary text.
    pub text: Style,
    /// Secondary text: times, ids.
    pub dim: Style,
    /// Pane borders and titles.
    pub border: Style,
    /// The focused pane's border and title.
    pub border_focused: Style,
    /// What the current step is about.
    pub active: Style,
    /// Something that went well (allow, pass, Running).
    pub ok: Style,
    /// Something refused or failing.
    pub bad: Style,
    /// Something that changed (mutated, modified fields).
    pub changed: Style,
    /// Components' names.
    pub component: Style,
    /// The status bar.
    pub bar: Style,
}

impl Theme {
    /// The theme `name`; with `no_color`, styles use only bold, reverse and
    /// underline, never a colour.
    pub fn new(name: ThemeName, no_color: bool) -> Theme {
        if no_color {
            let plain = Style::new();
            return Theme {
                name,
                text: plain,
                dim: plain,
                border: plain,
                border_focused: plain.add_modifier(Modifier::BOLD),
                active: plain.add_modifier(Modifier::REVERSED),
                ok: plain,
                bad: plain.add_modifier(Modifier::BOLD),
                changed: plain.add_modifier(Modifier::UNDERLINED),
                component: plain.add_modifier(Modifier::BOLD),
                bar: plain.add_modifier(Modifier::REVERSED),
            };
        }
        let (fg, dim, border, accent, ok, bad, changed, component, bar_background, bar_foreground) =
            match name {
                ThemeName::Dark => (
                    Color::Gray,
                    Color::DarkGray,
                    Color::DarkGray,
                    Color::Yellow,
                    Color::Green,
                    Color::LightRed,
                    Color::LightMagenta,
                    Color::Cyan,
                    Color::Blue,
                    Color::White,
                ),
                ThemeName::Light => (
                    Color::Black,
                    Color::DarkGray,
                    // Titles sit on the borders: dark enough to read on white.
                    Color::DarkGray,
                    Color::Blue,
                    Color::Green,
                    Color::Red,
                    Color::Magenta,
                    Color::Blue,
                    Color::Gray,
                    Color::Black,
                ),
                ThemeName::HighContrast => (
                    Color::White,
                    Color::White,
                    Color::White,
                    Color::Yellow,
                    Color::LightGreen,
                    Color::LightRed,
                    Color::LightYellow,
                    Color::LightCyan,
                    Color::Black,
                    Color::White,
                ),
            };
        let bold = |c: Color| Style::new().fg(c).add_modifier(Modifier::BOLD);
        Theme {
            name,
            text: Style::new().fg(fg),
            dim: Style::new().fg(dim),
            border: Style::new().fg(border),
            border_focused: bold(accent),
            active: Style::new()
                .fg(Color::Black)
                .bg(accent)
                .add_modifier(Modifier::BOLD),
            ok: Style::new().fg(ok),
            bad: bold(bad),
            changed: bold(changed),
            component: bold(component),
            bar: Style::new().fg(bar_foreground).bg(bar_background),
        }
    }
}
