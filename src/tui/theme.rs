//! Colours and styles, in one place so panes agree: good green, wary
//! yellow and bad red (each pattern's unit maps its own words onto them);
//! the focused pane's border bright; secondary text dim. Panes
//! draw in these; the theme the user chose is laid over the whole frame
//! once it is drawn: high contrast brightens every colour, and `NO_COLOR`
//! takes the colours away but keeps bold, reverse and underline, so the
//! selection and the focused pane stay visible.

use crate::bus::BreakerState;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};
use std::fmt;
use std::str::FromStr;

/// The look the user chose (`--theme`, `CONCLAVE_THEME`), and whether
/// colour is allowed at all (`NO_COLOR`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Theme {
    pub name: ThemeName,
    /// No colour reaches the terminal; attributes do.
    pub no_color: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThemeName {
    #[default]
    Default,
    /// Bright colours only, no grey on black, the selection bold too.
    HighContrast,
}

impl ThemeName {
    pub(crate) const ALL: [ThemeName; 2] = [ThemeName::Default, ThemeName::HighContrast];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ThemeName::Default => "default",
            ThemeName::HighContrast => "high-contrast",
        }
    }
}

impl fmt::Display for ThemeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A theme name that is none of the themes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTheme(pub String);

impl fmt::Display for UnknownTheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = ThemeName::ALL.iter().map(|t| t.as_str()).collect();
        write!(
            f,
            "unknown theme {:?}: expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownTheme {}

impl FromStr for ThemeName {
    type Err = UnknownTheme;

    fn from_str(s: &str) -> Result<Self, UnknownTheme> {
        ThemeName::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| UnknownTheme(s.to_string()))
    }
}

impl Theme {
    /// The theme `flag` names, else the one `CONCLAVE_THEME` names, with
    /// `NO_COLOR` (set and not empty, as no-color.org says) taking the
    /// colours away. The error names the variable with the unknown name.
    pub fn chosen(
        flag: Option<ThemeName>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Theme, String> {
        let name = match flag {
            Some(name) => name,
            None => match env("CONCLAVE_THEME").filter(|v| !v.is_empty()) {
                Some(value) => value
                    .parse()
                    .map_err(|e: UnknownTheme| format!("CONCLAVE_THEME: {e}"))?,
                None => ThemeName::Default,
            },
        };
        Ok(Theme {
            name,
            no_color: env("NO_COLOR").is_some_and(|v| !v.is_empty()),
        })
    }

    /// Lay the theme over a drawn frame.
    pub(crate) fn apply(self, buffer: &mut Buffer) {
        if self.name == ThemeName::Default && !self.no_color {
            return;
        }
        for cell in &mut buffer.content {
            if self.name == ThemeName::HighContrast {
                cell.fg = brighter(cell.fg);
                cell.bg = brighter(cell.bg);
                cell.modifier.remove(Modifier::DIM);
                if cell.modifier.contains(Modifier::REVERSED) {
                    cell.modifier.insert(Modifier::BOLD);
                }
            }
            if self.no_color {
                // A highlight drawn as a background stays one, reversed;
                // grey text stays secondary, dimmed.
                if !matches!(cell.bg, Color::Reset) {
                    cell.modifier.insert(Modifier::REVERSED);
                }
                if matches!(cell.fg, Color::DarkGray) {
                    cell.modifier.insert(Modifier::DIM);
                }
                cell.fg = Color::Reset;
                cell.bg = Color::Reset;
                cell.underline_color = Color::Reset;
            }
        }
    }
}

/// A colour's bright counterpart; grey on black becomes plain grey.
fn brighter(color: Color) -> Color {
    match color {
        Color::DarkGray => Color::Gray,
        Color::Gray => Color::White,
        Color::Green => Color::LightGreen,
        Color::Yellow => Color::LightYellow,
        Color::Red => Color::LightRed,
        Color::Cyan => Color::LightCyan,
        Color::Magenta => Color::LightMagenta,
        Color::Blue => Color::LightBlue,
        other => other,
    }
}

pub(crate) const GO: Color = Color::Green;
pub(crate) const CAUTION: Color = Color::Yellow;
pub(crate) const BLOCK: Color = Color::Red;
pub(crate) const ACCENT: Color = Color::Cyan;

pub(crate) fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

pub(crate) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

pub(crate) fn border(focused: bool) -> Style {
    if focused {
        Style::default().fg(ACCENT).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Gray)
    }
}

/// A run's headline in a verdict's colour ([`GO`], [`CAUTION`] or
/// [`BLOCK`]), bold.
pub(crate) fn headline(colour: Color) -> Style {
    bold().fg(colour)
}

pub(crate) fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

pub(crate) fn error() -> Style {
    Style::default().fg(BLOCK)
}

/// A breaker's colour: closed green, half-open yellow, open red.
pub(crate) fn breaker(state: BreakerState) -> Style {
    Style::default().fg(match state {
        BreakerState::Closed => GO,
        BreakerState::HalfOpen => CAUTION,
        BreakerState::Open => BLOCK,
    })
}

/// Text a search found: underlined and bold, so it shows without colour
/// and inside a selected (reversed) row too.
pub(crate) fn found() -> Style {
    Style::default()
        .fg(CAUTION)
        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_flag_wins_over_the_variable_and_an_unknown_name_is_refused() {
        let high = Theme::chosen(None, env(&[("CONCLAVE_THEME", "high-contrast")]));
        assert_eq!(high.unwrap().name, ThemeName::HighContrast);
        let flag = Theme::chosen(
            Some(ThemeName::Default),
            env(&[("CONCLAVE_THEME", "nonsense")]),
        );
        assert_eq!(flag.unwrap().name, ThemeName::Default);
        let error = Theme::chosen(None, env(&[("CONCLAVE_THEME", "neon")])).unwrap_err();
        assert_eq!(
            error,
            "CONCLAVE_THEME: unknown theme \"neon\": expected one of default, high-contrast"
        );
        assert!(
            Theme::chosen(None, env(&[("NO_COLOR", "1")]))
                .unwrap()
                .no_color
        );
        assert!(
            !Theme::chosen(None, env(&[("NO_COLOR", "")]))
                .unwrap()
                .no_color,
            "an empty NO_COLOR is not set"
        );
        assert_eq!("high-contrast".parse(), Ok(ThemeName::HighContrast));
    }

    #[test]
    fn no_color_keeps_the_attributes_and_turns_highlights_to_reverse() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 4, 1));
        buffer[(0, 0)].set_style(selected());
        buffer[(1, 0)].set_style(border(true));
        buffer[(2, 0)].set_style(Style::default().fg(Color::Black).bg(GO));
        buffer[(3, 0)].set_style(dim());
        Theme {
            name: ThemeName::Default,
            no_color: true,
        }
        .apply(&mut buffer);
        for cell in &buffer.content {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
        }
        assert!(buffer[(0, 0)].modifier.contains(Modifier::REVERSED));
        assert!(buffer[(1, 0)].modifier.contains(Modifier::BOLD));
        assert!(buffer[(2, 0)].modifier.contains(Modifier::REVERSED));
        assert!(buffer[(3, 0)].modifier.contains(Modifier::DIM));
    }

    #[test]
    fn high_contrast_brightens_and_bolds_the_selection() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 2, 1));
        buffer[(0, 0)].set_style(selected());
        buffer[(1, 0)].set_style(dim());
        Theme {
            name: ThemeName::HighContrast,
            no_color: false,
        }
        .apply(&mut buffer);
        assert!(
            buffer[(0, 0)]
                .modifier
                .contains(Modifier::BOLD | Modifier::REVERSED)
        );
        assert_eq!(buffer[(1, 0)].fg, Color::Gray);
    }
}
