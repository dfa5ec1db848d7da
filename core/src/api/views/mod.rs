//! The wire views several endpoints answer with: the account (`ApiUser`), the reward object, a
//! clan, a player's counters, a friend and a player on a friends' list.

mod clan;
mod friend;
mod reward;
mod stats;
mod user;

pub(crate) use clan::ClanView;
pub(crate) use friend::{FriendView, ListedView};
pub(crate) use reward::RewardView;
pub(crate) use stats::StatsView;
pub(crate) use user::ApiUser;
