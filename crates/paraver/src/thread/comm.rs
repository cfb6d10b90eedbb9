//! The communication side of the thread functions: messages in transit, bandwidth and the
//! bytes between two events, as Paraver's `semanticthreadfunctions.cpp` counts them.

use prvscope_store::Comm;

use super::{ThreadCtx, ThreadFn};
use crate::records::{
    Rec,
    kind::{COMM, LOG, PHY, RECV, RRECV, RSEND, SEND},
};

/// A communication Paraver leaves out of the "in transit" counts: received (logically or
/// physically, whichever is later) no later than it was sent.
fn negative(c: &Comm) -> bool {
    (c.lrecv > c.precv && c.lrecv <= c.lsend) || (c.lrecv <= c.precv && c.precv <= c.lsend)
}

/// The "in transit" and "negative" counters, carried on from the previous value:
/// +1 (or +size) where a message starts, -1 where it ends; the negative counters count
/// only the messages received before they were sent, with the signs swapped.
pub(super) fn transit(f: &ThreadFn, ctx: &ThreadCtx, r: &Rec, prev: f64) -> f64 {
    use ThreadFn::{
        RecvBytesInTransit, RecvNegativeBytes, RecvNegativeMessages, SendBytesInTransit,
        SendMessagesInTransit,
    };
    let c = &ctx.comms[r.a as usize];
    let amount = match f {
        SendBytesInTransit | RecvBytesInTransit | RecvNegativeBytes => c.size as i64 as f64,
        _ => 1.0,
    };
    let sending = matches!(f, SendBytesInTransit | SendMessagesInTransit);
    let negative_fn = matches!(f, RecvNegativeMessages | RecvNegativeBytes);
    match step(ctx, r, c, sending) {
        (starts, neg) if neg == negative_fn => {
            let sign = if negative_fn { -1.0 } else { 1.0 };
            match starts {
                Some(true) => prev + sign * amount,
                Some(false) => prev - sign * amount,
                None => prev,
            }
        }
        _ => prev,
    }
}

/// For a communication record: (`Some(true)` where the message starts, `Some(false)` where
/// it ends, `None` otherwise; whether the message is "negative"), as the in-transit functions
/// see them with the window's logical or physical view.
fn step(ctx: &ThreadCtx, r: &Rec, c: &Comm, sending: bool) -> (Option<bool>, bool) {
    let k = r.kind;
    let (start, done) = if sending {
        (SEND, RRECV)
    } else {
        (RSEND, RECV)
    };
    if ctx.filter.logical {
        let starts = k & LOG != 0 && k & start != 0;
        let ends = (k & LOG != 0 && k & done != 0 && c.lrecv > c.precv)
            || (k & PHY != 0 && k & done != 0 && c.precv >= c.lrecv);
        let what = if starts {
            Some(true)
        } else if ends {
            Some(false)
        } else {
            None
        };
        (what, negative(c))
    } else {
        let what = if k & PHY != 0 && k & start != 0 {
            Some(true)
        } else if k & PHY != 0 && k & done != 0 {
            Some(false)
        } else {
            None
        };
        (what, c.precv <= c.psend)
    }
}

/// A double to a 64-bit integer as Paraver's `(PRV_INT64)` cast does on x86-64
/// (`cvttsd2si`): truncated, and the "integer indefinite" `i64::MIN` where it does not fit
/// (Rust's `as` would saturate instead).
fn cvttsd2si(x: f64) -> i64 {
    // 2^63: the first double above i64::MAX.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// Send/Recv `BandWidth`: the sum of the bandwidths of the messages in transit, kept (as
/// Paraver does) as an integer count of 1e-12 units in `acc`.
pub(super) fn bandwidth(f: &ThreadFn, ctx: &ThreadCtx, r: &Rec, acc: &mut i64, factor: f64) -> f64 {
    let c = &ctx.comms[r.a as usize];
    let time = if ctx.filter.logical && c.lrecv > c.precv {
        c.lrecv as i64 - c.lsend as i64
    } else if ctx.filter.physical {
        c.precv as i64 - c.psend as i64
    } else {
        c.precv as i64 - c.lsend as i64
    };
    if time == 0 {
        return *acc as f64 * 1e-12;
    }
    let time = ctx.units(time.unsigned_abs() as f64);
    let bytes = c.size as i64 as f64 / factor;
    let delta = cvttsd2si((bytes / time) * 1e12);
    let sending = matches!(f, ThreadFn::SendBandWidth(_));
    if let (Some(starts), false) = step(ctx, r, c, sending) {
        // Paraver's 64-bit integer; it wraps where it overflows.
        *acc = acc.wrapping_add(if starts { delta } else { delta.wrapping_neg() });
    }
    *acc as f64 * 1e-12
}

/// `getTotalCommSize` / `getTotalSentCommSize`: bytes of the communications between event
/// `i` and the next filtered event `j`.
pub(super) fn comm_bytes(ctx: &ThreadCtx, i: usize, j: usize, sent_only: bool) -> f64 {
    let f = ctx.filter;
    let t0 = ctx.rec(i).time;
    let t1 = ctx.rec(j).time;
    let size = |k: usize| ctx.comms[ctx.rec(k).a as usize].size as i64 as f64;
    let mut bytes = 0.0;
    // Sends at the event's time, before it.
    for k in (0..i).rev() {
        // Records before those of the event's time may have been released.
        let Some(rk) = ctx.recs.get(k) else {
            break;
        };
        if rk.time != t0 {
            break;
        }
        let kd = rk.kind;
        let phy_only = f.physical && !f.logical;
        if ((phy_only && kd & PHY != 0) || (f.logical && kd & LOG != 0))
            && kd & COMM != 0
            && kd & SEND != 0
            && ctx.pass(k)
        {
            bytes += size(k);
        }
    }
    let mut k = i;
    loop {
        k += 1;
        let Some(r) = ctx.recs.get(k) else {
            break;
        };
        let r = &r;
        if sent_only {
            if r.time >= t1 {
                break;
            }
            if r.kind & COMM != 0 && r.kind & SEND != 0 && ctx.pass(k) {
                bytes += size(k);
            }
            continue;
        }
        if r.time > t1 {
            break;
        }
        let kd = r.kind;
        if kd & (COMM | RSEND | RRECV) == 0 {
            continue;
        }
        let c = &ctx.comms[r.a as usize];
        if r.time == t0 {
            if kd & COMM != 0 && kd & SEND != 0 && ctx.pass(k) {
                bytes += size(k);
            }
        } else if f.physical && !f.logical && kd & PHY != 0 && kd & COMM != 0 {
            if (r.time < t1 || kd & RECV != 0) && ctx.pass(k) {
                bytes += size(k);
            }
        } else if (kd & COMM != 0 && f.logical && kd & LOG != 0)
            || (kd & PHY != 0 && kd & RECV != 0)
        {
            let skip =
                f.logical && f.physical && kd & LOG != 0 && kd & RECV != 0 && c.precv >= c.lrecv;
            if !skip {
                if r.time < t1 {
                    if ctx.pass(k) {
                        bytes += size(k);
                    }
                } else if kd & RECV != 0
                    && ((kd & LOG != 0 && c.lrecv > c.precv)
                        || (kd & PHY != 0 && c.precv >= c.lrecv))
                    && ctx.pass(k)
                {
                    bytes += size(k);
                }
            }
        }
    }
    bytes
}
