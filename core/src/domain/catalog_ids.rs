//! The ids of catalog entries, as written in the content file and stored with an account's
//! holdings. Each kind has its own type so that an item id is never taken for a pack id.

use serde::{Deserialize, Serialize};

macro_rules! catalog_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(transparent)]
        pub struct $name(pub i64);
    };
}

catalog_id!(
    /// The id of a shop item (an outfit, an emote, ...).
    ItemId
);
catalog_id!(
    /// The id of a pack (a chest).
    PackId
);
catalog_id!(
    /// The id of a timed deal.
    DealId
);
catalog_id!(
    /// The id of an in-app purchase product.
    IapId
);
catalog_id!(
    /// The id of a reward track (a season pass).
    TrackId
);
catalog_id!(
    /// The id of a quest (fixed in the content file, or one day's quest from a daily template).
    QuestId
);
catalog_id!(
    /// The id of a reward track's challenge.
    ChallengeId
);
catalog_id!(
    /// The id of a reward track's item evolution.
    EvolutionId
);
