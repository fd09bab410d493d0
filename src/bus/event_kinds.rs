//! The macro that defines an enum of event kinds and, from the same list,
//! the reading of one kind when its name is known before its fields (see
//! `event::wire`). Serde reads a tagged enum by buffering every field
//! first, which costs more than the reading itself. rustfmt leaves a
//! macro's body as written.

/// `pub enum NAME[<P = DEFAULT>], read as NAMED = "NAME" { kinds }
/// [wrapping { groups }]`: the enum (its groups' payloads may be of the
/// type parameter), tagged by `type` as the kinds are listed, each group's events
/// read through its own enum (untagged here: a group's enum has the tag),
/// each kind's name as `&'static str` (`From`, spelt as serde spells it);
/// and `NAMED`, whose `deserialize` reads one of the listed kinds, the
/// groups left out (each is read through its own `NAMED`).
macro_rules! event_kinds {
    (
        $(#[$attr:meta])*
        pub enum $name:ident $(<$p:ident $(= $default:ty)?>)?, read as $named:ident = $remote:literal { $($kinds:tt)* }
        $(wrapping { $($(#[doc = $doc:literal])* $group:ident($payload:ty),)* })?
    ) => {
        $(#[$attr])*
        #[derive(strum::IntoStaticStr, strum::VariantNames)]
        #[strum(serialize_all = "snake_case")]
        pub enum $name $(<$p $(= $default)?>)? {
            $($kinds)*
            $($($(#[doc = $doc])* #[serde(untagged)] $group($payload),)*)?
        }

        #[derive(serde::Deserialize)]
        #[serde(remote = $remote, rename_all = "snake_case")]
        #[allow(dead_code)] // only its `deserialize` is used
        pub(crate) enum $named $(<$p>)? {
            $($kinds)*
            $($(#[serde(skip)] $group($payload),)*)?
        }
    };
}

pub(crate) use event_kinds;
