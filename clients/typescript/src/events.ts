/**
 * The domain events a player receives on the realtime channel (and that the webhooks deliver):
 * one JSON object, `id`, `at`, `account` and the fields of its `kind`.
 *
 * Written by hand from the server's `EventPayload` (`core/src/events/kinds.rs`, serde
 * `tag = "kind"`, snake_case); they can be generated once the server publishes an AsyncAPI
 * document of the channel. A newer server may send kinds this list does not name yet.
 */

/** One of the two currencies: `coins` or `gems`. */
export type Currency = 'coins' | 'gems';

/** A price paid: one currency's amount. */
export interface Price {
  /** Which currency. */
  currency: Currency;
  /** How much. */
  amount: number;
}

/** What a pack, a reward or a purchase gave, tagged by `granted`. */
export type Granted =
  | {
      /** Currency. */
      granted: 'currency';
      /** Which currency. */
      currency: Currency;
      /** How much. */
      amount: number;
    }
  | {
      /** Experience points. */
      granted: 'experience';
      /** How many. */
      amount: number;
    }
  | {
      /** A newly owned item. */
      granted: 'item';
      /** The item's id. */
      item: number;
    }
  | {
      /** Coins given in place of an item the account already owned. */
      granted: 'duplicate_item';
      /** The item already owned. */
      item: number;
      /** The coins given instead. */
      coins: number;
    }
  | {
      /** Unopened packs. */
      granted: 'packs';
      /** The pack's id. */
      pack: number;
      /** How many. */
      quantity: number;
    };

/** One player's result in a `match_reported` event. */
export interface MatchPlayer {
  /** The player's account. */
  account: number;
  /** The player's placement (1 = won). */
  placement: number;
  /** The player's kills. */
  kills: number;
  /** Seconds the player stayed alive. */
  time_alive_secs: number;
  /** What the match gave the player (absent when nothing, e.g. for a banned player). */
  granted?: Granted[];
}

/** What happened, tagged by `kind`. */
export type EventPayload =
  | {
      /** An account was created by its first sign-in. */
      kind: 'account_created';
      /** How it signed in (`device`, `chat`, a provider's name). */
      provider: string;
      /** Its friend code (`Name#1234`). */
      friend_code: string;
    }
  | {
      /** An account signed in (its first sign-in too, after `account_created`). */
      kind: 'signed_in';
      /** How (`device`, `chat`, a provider's name). */
      provider: string;
      /** Whether this sign-in created the account. */
      first_login: boolean;
    }
  | {
      /** A purchase: an item, pack, deal, in-app product or reward-track pass or tiers. */
      kind: 'purchase';
      /** What was bought, as the ledger names it (`buy`, `iap`, `track`). */
      reason: string;
      /** Which thing (`item:7`, `pack:3x2`, `chat:tx-1`, `buy:1`). */
      reference: string;
      /** What it cost (empty for a product paid in a store). */
      price: Price[];
      /** What it gave. */
      granted: Granted[];
    }
  | {
      /** An unopened pack was opened. */
      kind: 'pack_opened';
      /** Which pack (`open:3`). */
      reference: string;
      /** What it gave. */
      drops: Granted[];
    }
  | {
      /** A reward was claimed. */
      kind: 'reward_claimed';
      /** The reward type (`first`, `gift`, `recurring`, ...). */
      reward_type: string;
      /** The claim as the ledger names it (`gift`, `recurring:2`). */
      reference: string;
      /** What it gave. */
      granted: Granted[];
    }
  | {
      /** The account's friend code changed. */
      kind: 'renamed';
      /** The new friend code (`Name#1234`). */
      friend_code: string;
    }
  | {
      /** The account reached a level. */
      kind: 'level_reached';
      /** The level reached. */
      level: number;
    }
  | {
      /** The account reached a tier of a reward track (its rewards were granted). */
      kind: 'tier_reached';
      /** The track's id. */
      track: number;
      /** The tier reached. */
      tier: number;
    }
  | {
      /** A match report was recorded; the player is one of its players. */
      kind: 'match_reported';
      /** The match's id. */
      match_id: string;
      /** The game mode (`solo`, `duo`, ...). */
      mode: string;
      /** Each player's result, in the report's order. */
      players: MatchPlayer[];
    }
  | {
      /** An operator banned (`banned: true`) or unbanned the account. */
      kind: 'banned';
      /** Whether the account is banned now. */
      banned: boolean;
    }
  | {
      /** The account was deleted. */
      kind: 'deleted';
    }
  | {
      /** Holdings moved by an operator (`grant`, `refund`, `remove`). */
      kind: 'holdings_changed';
      /** Why, as the ledger names it. */
      reason: string;
      /** The change's reference. */
      reference: string;
      /** The currencies it took. */
      price: Price[];
      /** What it gave. */
      granted: Granted[];
    }
  | {
      /** The account's user keys were revoked: every one, or the one it signed out with. */
      kind: 'keys_revoked';
      /** Whether every key went. */
      all: boolean;
    }
  | {
      /** The account's role was set (`player`, `admin`). */
      kind: 'role_changed';
      /** The role now. */
      role: string;
    }
  | {
      /** The account was linked to the chat platform, or its link's premium changed. */
      kind: 'chat_linked';
      /** Whether the chat platform says it is premium. */
      premium: boolean;
    }
  | {
      /** The account invited another account (`invitee`) to its clan; the invitee is told too. */
      kind: 'clan_invited';
      /** The clan's id. */
      clan: number;
      /** The account invited. */
      invitee: number;
    }
  | {
      /** The account created (`created: true`) or joined a clan. */
      kind: 'clan_joined';
      /** The clan's id. */
      clan: number;
      /** Whether the account created it. */
      created: boolean;
    }
  | {
      /** The account asked another (`friend`) to be friends; the other is told too. */
      kind: 'friend_requested';
      /** The account asked. */
      friend: number;
    }
  | {
      /**
       * The account and another became friends (it accepted the other's request, or its request
       * met the other's); the other is told too.
       */
      kind: 'friend_accepted';
      /** The new friend. */
      friend: number;
    }
  | {
      /** The account declined another's friend request (or blocked it); the other is told too. */
      kind: 'friend_request_declined';
      /** The account whose request it declined. */
      friend: number;
    }
  | {
      /** The account withdrew its friend request (or blocked the account it asked); the other is told too. */
      kind: 'friend_request_cancelled';
      /** The account it had asked. */
      friend: number;
    }
  | {
      /** The account ended a friendship (removing the friend, or blocking it); the other is told too. */
      kind: 'friend_removed';
      /** The former friend. */
      friend: number;
    }
  | {
      /** The account blocked (`blocked: true`) or unblocked another; told to the acting account only. */
      kind: 'player_blocked';
      /** The account blocked or unblocked. */
      player: number;
      /** Whether it is blocked now. */
      blocked: boolean;
    }
  | {
      /** An operator acted through the operator API. */
      kind: 'operator_action';
      /** The id of the operator token that acted. */
      token: number;
      /** What (`grant`, `refund`, `remove`, `ban`, ...). */
      action: string;
      /** On what (`account:42`). */
      target: string;
      /** Why, as the operator said. */
      reason: string;
      /** `done`, or `refused: why`. */
      result: string;
    };

/** The name of an event's kind: `'purchase'`, `'level_reached'`, ... */
export type EventKind = EventPayload['kind'];

/** An event of one kind, its fields typed: `EventOf<'purchase'>`. */
export type EventOf<Kind extends EventKind> = DomainEvent & { kind: Kind };

/** One event: what happened to an account, when, under the id consumers deduplicate by. */
export type DomainEvent = {
  /** The event's id: unique, growing in commit order for one account's events. */
  id: number;
  /** When the change happened (RFC 3339). */
  at: string;
  /** The account it happened to (`null` for an event tied to no one account). */
  account: number | null;
} & EventPayload;
