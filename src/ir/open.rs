//! Open enumerations: a newtype over the raw number with named constants, so a value dwarv has
//! no name for survives a round trip (printed as `unknown(0x…)`), as gimli's `dw!` does.

/// Declares an open enum. Each row gives a constant, its value and its name in the IR text.
#[macro_export]
macro_rules! open_enum {
    ($(#[$meta:meta])* $name:ident : $repr:ty { $($konst:ident = $val:expr => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub $repr);

        impl $name {
            $(pub const $konst: $name = $name($val);)*
            /// Every named value with its IR text name.
            pub const NAMES: &'static [($repr, &'static str)] = &[$(($val, $text)),*];

            /// The IR text name, when the value has one.
            pub fn name(self) -> Option<&'static str> {
                Self::NAMES.iter().find(|(v, _)| *v == self.0).map(|(_, n)| *n)
            }
            pub fn from_name(text: &str) -> Option<Self> {
                Self::NAMES.iter().find(|(_, n)| *n == text).map(|(v, _)| $name(*v))
            }
        }

        impl $crate::ir::text::Codec for $name {
            fn encode(&self, w: &mut $crate::ir::text::ValueWriter<'_>) {
                match self.name() {
                    Some(n) => w.word(n),
                    None => w.unknown(self.0 as u64),
                }
            }
            fn decode(v: &$crate::ir::text::Val, r: &$crate::ir::text::Ctx) -> $crate::ir::text::PResult<Self> {
                if let Some(raw) = v.as_unknown() {
                    return <$repr>::try_from(raw).map($name).map_err(|_| r.err(v, concat!("value out of range for ", stringify!($name))));
                }
                let word = v.as_word().ok_or_else(|| r.err(v, concat!("expected a ", stringify!($name), " name or unknown(N)")))?;
                Self::from_name(word).ok_or_else(|| r.err(v, &format!("unknown {} `{}`", stringify!($name), word)))
            }
        }
    };
}
