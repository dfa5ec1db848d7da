//! Why a channel closes (its WebSocket close code), and the signal by which the hub or the
//! node's stop tells a channel to close.

use std::sync::atomic::{AtomicU16, Ordering};

use tokio::sync::Notify;

/// The close codes the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseCode {
    /// 1000: the client closed, or the channel ended normally.
    Normal,
    /// 1001: the server stops.
    GoingAway,
    /// 1008: the key is no longer valid (revoked, expired, the account banned or deleted).
    KeyInvalid,
    /// 4000: the client was silent for two ping intervals.
    Idle,
    /// 4008: the client is too far behind (its queue is full); it resumes with `after`.
    SlowConsumer,
}

impl CloseCode {
    /// The code on the wire.
    pub fn code(self) -> u16 {
        match self {
            Self::Normal => 1000,
            Self::GoingAway => 1001,
            Self::KeyInvalid => 1008,
            Self::Idle => 4000,
            Self::SlowConsumer => 4008,
        }
    }

    /// The close frame's reason.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Normal => "closed",
            Self::GoingAway => "the server is stopping",
            Self::KeyInvalid => "the user key is no longer valid",
            Self::Idle => "no message for two ping intervals",
            Self::SlowConsumer => "too far behind: reconnect with `after`",
        }
    }

    /// The code `code` names, if it is one of these.
    fn from_code(code: u16) -> Option<Self> {
        [
            Self::Normal,
            Self::GoingAway,
            Self::KeyInvalid,
            Self::Idle,
            Self::SlowConsumer,
        ]
        .into_iter()
        .find(|known| known.code() == code)
    }
}

/// A close asked of a channel from outside its task: the first code asked wins.
#[derive(Debug, Default)]
pub(crate) struct CloseSignal {
    code: AtomicU16,
    asked: Notify,
}

impl CloseSignal {
    /// Asks the channel to close with `code`, unless a close was asked already.
    pub(crate) fn close(&self, code: CloseCode) {
        if self
            .code
            .compare_exchange(0, code.code(), Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.asked.notify_one();
        }
    }

    /// The close asked, if any.
    pub(crate) fn asked(&self) -> Option<CloseCode> {
        CloseCode::from_code(self.code.load(Ordering::Acquire))
    }

    /// Waits until a close is asked; answers its code.
    pub(crate) async fn wait(&self) -> CloseCode {
        loop {
            let notified = self.asked.notified();
            if let Some(code) = self.asked() {
                return code;
            }
            notified.await;
        }
    }
}
