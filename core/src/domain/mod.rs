//! Pure rules and value types with no I/O. Each type only holds valid values.

mod api_date;
mod catalog_ids;
mod client_version;
mod device_id;
mod friend_code;
mod game_mode;
mod operator_secret;
mod operator_session_id;
mod platform;
pub mod player_names;
mod secret_hex;
mod shown_text;
mod signed_key;
mod user_key;

pub use api_date::{ApiDate, format_plain_datetime};
pub use catalog_ids::{ChallengeId, DealId, EvolutionId, IapId, ItemId, PackId, QuestId, TrackId};
pub use client_version::ClientVersion;
pub use device_id::{DEVICE_PROVIDER, DeviceId};
pub use friend_code::{FriendCode, FriendCodeError, NAME_MAX_CHARS, NAME_MIN_CHARS};
pub use game_mode::{GameMode, MODE_NAME_MAX_CHARS};
pub use operator_secret::OperatorSecret;
pub use operator_session_id::OperatorSessionId;
pub use platform::Platform;
pub use shown_text::{HiddenCharacter, check_shown_text};
pub use signed_key::{KEY_GENERATIONS, KeyClaims, KeySecret, KeySigner};
pub use user_key::{KeyHash, UserKey};
