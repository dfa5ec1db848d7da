//! `GET /api/quest/available`: the quests running now (the fixed ones and today's daily
//! quests), with the caller's progress when a key comes with the request.

use serde::Serialize;
use utoipa::ToSchema;

use super::shared::session;
use super::views::RewardView;
use crate::App;
use crate::content::Quest;
use crate::domain::{ApiDate, QuestId};
use crate::http::{ApiError, Incoming, Reply};
use crate::openapi::{KeyMismatch, PresentedUserKeyInvalid, Success};
use crate::progression::quest_counter;
use crate::store::Progress;

/// `{status, quests}`.
#[derive(Serialize, ToSchema)]
struct QuestsAnswer<'a> {
    /// The quests running now.
    quests: Vec<QuestView<'a>>,
}

/// `{id, name, stat_key, required, reward, created, ends, personal}`.
#[derive(Serialize, ToSchema)]
struct QuestView<'a> {
    id: QuestId,
    name: &'a str,
    /// The statistic the quest counts.
    stat_key: &'a str,
    /// How much of it completes the quest.
    required: i64,
    /// What completing it gives.
    reward: RewardView<'a>,
    /// When it started.
    created: ApiDate,
    /// When it ends.
    ends: ApiDate,
    /// The caller's progress; null without a key.
    personal: Option<PersonalQuest>,
}

/// The caller's progress: `{id, user_id, quest_id, value, is_completed}` (`id` is the quest's:
/// progress is kept once per account and quest).
#[derive(Serialize, ToSchema)]
struct PersonalQuest {
    id: QuestId,
    user_id: i64,
    quest_id: QuestId,
    value: i64,
    is_completed: bool,
}

/// `GET /api/quest/available` (key optional): `{status, quests}`; `personal` is null without
/// a key.
#[utoipa::path(
    get,
    path = "/api/quest/available",
    tag = "progression",
    operation_id = "availableQuests",
    description = "The quests running now (the fixed ones and today's daily quests), with the \
        caller's progress when a key comes with the request.",
    responses(
        (status = 200, description = "The quests", body = Success<QuestsAnswer>),
        (status = 401, response = PresentedUserKeyInvalid),
        (status = 403, response = KeyMismatch),
    )
)]
pub(super) async fn available(app: App, incoming: Incoming) -> Result<Reply, ApiError> {
    let published = app.content.current();
    let session = session::optional(&app, &incoming).await?;
    let progress = match &session {
        Some(session) => Some(super::shared::change::progress_of(&app, session.account.id).await?),
        None => None,
    };
    let quests = published.content.quests.active(app.clock.now());
    let views = quests
        .iter()
        .map(|quest| QuestView {
            id: quest.id,
            name: &quest.name,
            stat_key: &quest.stat_key,
            required: quest.required,
            reward: RewardView::promised(&published.content.catalog, &quest.reward),
            created: ApiDate(quest.starts),
            ends: ApiDate(quest.ends),
            personal: session
                .as_ref()
                .zip(progress.as_ref())
                .map(|(session, progress)| personal(quest, session.account.id.0, progress)),
        })
        .collect();
    Ok(Reply::success(&QuestsAnswer { quests: views }))
}

fn personal(quest: &Quest, user_id: i64, progress: &Progress) -> PersonalQuest {
    let value = progress.counter(&quest_counter(quest.id));
    PersonalQuest {
        id: quest.id,
        user_id,
        quest_id: quest.id,
        value,
        is_completed: value >= quest.required,
    }
}
