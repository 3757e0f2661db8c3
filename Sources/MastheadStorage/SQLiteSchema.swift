import MastheadSQLite

/// The SQLite store's schema, as numbered migrations recorded in the `migrations` table.
enum SQLiteSchema {
    /// Each entry runs once, in order, inside a transaction with its record; entries are only appended.
    static let migrator = Migrator(migrations: [
        """
        CREATE TABLE users (user_id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL);
        CREATE TABLE subscriptions (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users (user_id),
            latest_receipt TEXT, linked_ms INTEGER NOT NULL,
            PRIMARY KEY (environment, original_transaction_id));
        CREATE INDEX subscriptions_by_user ON subscriptions (user_id);
        CREATE TABLE transactions (
            environment TEXT NOT NULL, transaction_id TEXT NOT NULL, original_transaction_id TEXT NOT NULL, product_id TEXT NOT NULL,
            purchase_ms INTEGER NOT NULL, expires_ms INTEGER, cancellation_ms INTEGER,
            is_upgraded INTEGER NOT NULL, is_trial INTEGER NOT NULL, is_intro_offer INTEGER NOT NULL,
            PRIMARY KEY (environment, transaction_id));
        CREATE INDEX transactions_by_subscription ON transactions (environment, original_transaction_id);
        CREATE TABLE renewals (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, product_id TEXT, auto_renew_product_id TEXT,
            auto_renew_on INTEGER, billing_retry INTEGER NOT NULL, grace_expires_ms INTEGER, expiration_intent TEXT,
            PRIMARY KEY (environment, original_transaction_id));
        CREATE TABLE pending_receipts (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, latest_receipt TEXT NOT NULL,
            PRIMARY KEY (environment, original_transaction_id));
        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY, received_ms INTEGER NOT NULL, notification_type TEXT NOT NULL, environment TEXT,
            original_transaction_ids TEXT NOT NULL, body TEXT NOT NULL);
        CREATE TABLE issues (
            publication_id TEXT NOT NULL, issue_id TEXT NOT NULL, title TEXT, published_ms INTEGER NOT NULL, free INTEGER NOT NULL,
            PRIMARY KEY (publication_id, issue_id));
        """,
        // The change log: what each commit changed, for the caches of every process on the file.
        """
        CREATE TABLE changes (
            id INTEGER PRIMARY KEY, origin INTEGER NOT NULL, user_id TEXT, publication_id TEXT, issue_id TEXT,
            CHECK ((user_id IS NULL) != (publication_id IS NULL AND issue_id IS NULL)));
        """,
        // Renewal infos become a history per subscription, each with its evidence instant (R2.7);
        // the infos stored before carry none.
        """
        CREATE TABLE renewal_history (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, evidence_ms INTEGER, product_id TEXT,
            auto_renew_product_id TEXT, auto_renew_on INTEGER, billing_retry INTEGER NOT NULL, grace_expires_ms INTEGER,
            expiration_intent TEXT);
        CREATE INDEX renewal_history_by_subscription ON renewal_history (environment, original_transaction_id);
        INSERT INTO renewal_history (environment, original_transaction_id, product_id, auto_renew_product_id, auto_renew_on,
            billing_retry, grace_expires_ms, expiration_intent)
        SELECT environment, original_transaction_id, product_id, auto_renew_product_id, auto_renew_on, billing_retry,
            grace_expires_ms, expiration_intent FROM renewals;
        DROP TABLE renewals;
        """,
        // Signed data (App Store Server Notifications V2, StoreKit 2): the users' app account
        // tokens, notifications idempotent per `notificationUUID` with their subtype, the bodies
        // refused for their signature (bounded, never applied), and each transaction's `signedDate`.
        // A rejected body's `bytes_before` counts the bytes of every body recorded before it,
        // pruned or not, so that the byte bound is an index range rather than a sum.
        """
        CREATE TABLE app_account_tokens (
            token TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (user_id), linked_ms INTEGER NOT NULL);
        CREATE INDEX app_account_tokens_by_user ON app_account_tokens (user_id);
        ALTER TABLE notifications ADD COLUMN notification_uuid TEXT;
        ALTER TABLE notifications ADD COLUMN subtype TEXT;
        CREATE UNIQUE INDEX notifications_by_uuid ON notifications (notification_uuid) WHERE notification_uuid IS NOT NULL;
        CREATE TABLE rejected_notifications (
            id INTEGER PRIMARY KEY, received_ms INTEGER NOT NULL, reason TEXT NOT NULL, bytes_before INTEGER NOT NULL, body BLOB NOT NULL);
        CREATE INDEX rejected_notifications_by_bytes_before ON rejected_notifications (bytes_before);
        ALTER TABLE transactions ADD COLUMN signed_date_ms INTEGER;
        """,
        // The rest of a transaction's state under R2.8 (the cancellation unsigned copies gave next
        // to a signed one, the offer), and the app account tokens signed transactions of a
        // subscription carried, so that linking a token later links the subscriptions seen before.
        """
        ALTER TABLE transactions ADD COLUMN unsigned_cancellation_ms INTEGER;
        ALTER TABLE transactions ADD COLUMN offer TEXT;
        CREATE TABLE subscription_app_account_tokens (
            token TEXT NOT NULL, environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL,
            PRIMARY KEY (token, environment, original_transaction_id));
        """,
        // Rejected notifications by kind, each kind within its own bound: `kind_seq` numbers a
        // kind's rows and `bytes_before` counts its bytes (bodies and, from now, reasons). The
        // rows kept so far are all counted as signed data.
        """
        ALTER TABLE rejected_notifications ADD COLUMN kind TEXT NOT NULL DEFAULT 'signed';
        ALTER TABLE rejected_notifications ADD COLUMN kind_seq INTEGER NOT NULL DEFAULT 0;
        UPDATE rejected_notifications SET kind_seq = id;
        DROP INDEX rejected_notifications_by_bytes_before;
        CREATE INDEX rejected_notifications_by_kind_seq ON rejected_notifications (kind, kind_seq);
        CREATE INDEX rejected_notifications_by_kind_bytes ON rejected_notifications (kind, bytes_before);
        """,
        // How Apple revoked a transaction (R5.3): its `revocationType` as sent and its
        // `revocationPercentage`, with the rest of its signed state. The transactions stored
        // before carry neither (a revocation without a type is a refund, R5.1).
        """
        ALTER TABLE transactions ADD COLUMN revocation_type TEXT;
        ALTER TABLE transactions ADD COLUMN revocation_percentage INTEGER;
        """,
        // Set App Account Token calls owed to Apple: one per subscription bought without a token
        // and linked to a user who has one (state 'pending', 'sent' or 'failed'), and the tokens
        // signed data carried looked up by subscription.
        """
        CREATE TABLE app_account_token_updates (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, user_id TEXT NOT NULL, app_account_token TEXT NOT NULL,
            state TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_ms INTEGER NOT NULL, queued_ms INTEGER NOT NULL, last_error TEXT,
            PRIMARY KEY (environment, original_transaction_id));
        CREATE INDEX app_account_token_updates_by_due ON app_account_token_updates (state, next_attempt_ms);
        CREATE INDEX subscription_app_account_tokens_by_subscription ON subscription_app_account_tokens (environment, original_transaction_id);
        """,
        // The offer and billing terms of signed transactions and renewal infos, as sent: one JSON
        // object each with Apple's names (StoredTerms). What was stored before carries none.
        """
        ALTER TABLE transactions ADD COLUMN terms TEXT;
        ALTER TABLE renewal_history ADD COLUMN terms TEXT;
        """,
        // Consumption information for refund requests: the first time each issue was served
        // readable to each user, the readers' consent to sending it, and the requests Apple made
        // (CONSUMPTION_REQUEST) still to answer, with their attempts and next attempt.
        """
        CREATE TABLE issues_served (
            user_id TEXT NOT NULL, publication_id TEXT NOT NULL, issue_id TEXT NOT NULL, first_served_ms INTEGER NOT NULL,
            PRIMARY KEY (user_id, publication_id, issue_id));
        CREATE TABLE consumption_consents (user_id TEXT PRIMARY KEY, consented INTEGER NOT NULL, recorded_ms INTEGER NOT NULL);
        CREATE TABLE consumption_requests (
            environment TEXT NOT NULL, transaction_id TEXT NOT NULL, user_id TEXT NOT NULL, received_ms INTEGER NOT NULL,
            deadline_ms INTEGER NOT NULL, attempts INTEGER NOT NULL, next_attempt_ms INTEGER NOT NULL,
            PRIMARY KEY (environment, transaction_id));
        CREATE INDEX consumption_requests_by_next_attempt ON consumption_requests (next_attempt_ms);
        """,
        // The publisher's grants (R17): one row per grant id, global to the store (one grant of
        // one user), its scope (a span's publications, access and streaming window; an issue
        // grant's publication and issue ids; id lists as JSON arrays of strings), its instants,
        // and when it was last written. Grants of a source are found by `grants_by_source`
        // (`grants import --revoke-missing`).
        """
        CREATE TABLE grants (
            grant_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users (user_id), source TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('span', 'issues')), publications TEXT NOT NULL, access TEXT, stream_window INTEGER,
            issue_ids TEXT, start_ms INTEGER NOT NULL, end_ms INTEGER, revoked_ms INTEGER, written_ms INTEGER NOT NULL);
        CREATE INDEX grants_by_user ON grants (user_id);
        CREATE INDEX grants_by_source ON grants (source, grant_id);
        """,
        // Gift codes (only the SHA-256 hash of each code; once redeemed, by whom and when: the gift
        // grant it gave is in `grants`, `gift:<id>`), institutional licences and their memberships
        // (a new row each time a user joins; `left_ms` NULL while a member).
        """
        CREATE TABLE gift_codes (
            id INTEGER PRIMARY KEY, code_hash BLOB NOT NULL UNIQUE, publications TEXT NOT NULL, access TEXT NOT NULL, duration TEXT NOT NULL,
            redeem_by_ms INTEGER NOT NULL, created_ms INTEGER NOT NULL, redeemed_by TEXT, redeemed_ms INTEGER);
        CREATE TABLE licences (
            licence_id TEXT PRIMARY KEY, publications TEXT NOT NULL, access TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER,
            seats INTEGER NOT NULL, updated_ms INTEGER NOT NULL);
        CREATE TABLE licence_members (
            licence_id TEXT NOT NULL REFERENCES licences (licence_id), user_id TEXT NOT NULL REFERENCES users (user_id), number INTEGER NOT NULL,
            joined_ms INTEGER NOT NULL, left_ms INTEGER,
            PRIMARY KEY (licence_id, user_id, number));
        CREATE UNIQUE INDEX licence_members_current ON licence_members (licence_id, user_id) WHERE left_ms IS NULL;
        CREATE INDEX licence_members_by_user ON licence_members (user_id);
        """,
        // Notifications by subscription, for a user's evidence: one row per (environment, original
        // transaction id) a notification named, filled on insert, the stored ones backfilled from
        // their comma-joined ids; and whether each came as a version 2 signed payload (the stored
        // ones: their body's top level holds `signedPayload`, which only version 2 bodies do).
        """
        CREATE TABLE notification_subscriptions (
            environment TEXT NOT NULL, original_transaction_id TEXT NOT NULL, notification_id INTEGER NOT NULL REFERENCES notifications (id),
            PRIMARY KEY (environment, original_transaction_id, notification_id));
        WITH RECURSIVE split (id, environment, original_transaction_id, rest) AS (
            SELECT id, environment, NULL, original_transaction_ids || ',' FROM notifications
            WHERE environment IS NOT NULL AND original_transaction_ids <> ''
            UNION ALL
            SELECT id, environment, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1) FROM split WHERE rest <> '')
        INSERT INTO notification_subscriptions (environment, original_transaction_id, notification_id)
        SELECT DISTINCT environment, original_transaction_id, id FROM split WHERE original_transaction_id IS NOT NULL AND original_transaction_id <> '';
        ALTER TABLE notifications ADD COLUMN signed INTEGER NOT NULL DEFAULT 0;
        UPDATE notifications SET signed = 1 WHERE json_valid(body) AND json_type(body, '$.signedPayload') IS NOT NULL;
        """,
        // The outbox: messages owed to outside endpoints (webhook events, forwarded notifications),
        // numbered in commit order; 'pending' (due at next_attempt_ms, which a claim moves to the
        // end of its lease), 'delivered' or 'failed' (parked), with the last attempt's status and error.
        """
        CREATE TABLE outbound_messages (
            id INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, ordering_key TEXT, event_id TEXT NOT NULL,
            content_type TEXT NOT NULL, body BLOB NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL, enqueued_ms INTEGER NOT NULL,
            next_attempt_ms INTEGER NOT NULL, finished_ms INTEGER, last_status INTEGER, last_error TEXT);
        CREATE INDEX outbound_messages_due ON outbound_messages (next_attempt_ms) WHERE state = 'pending';
        CREATE INDEX outbound_messages_pending_by_key ON outbound_messages (target, ordering_key, id) WHERE state = 'pending';
        CREATE INDEX outbound_messages_by_state ON outbound_messages (state, id);
        CREATE INDEX outbound_messages_finished ON outbound_messages (finished_ms) WHERE state <> 'pending';
        """,
        // What `entitlements.changed` events last reported per (user, publication, environment):
        // the state and readable count, the last event's sequence number, and when the answer may
        // next change with time alone (NULL: never), which the sweeper looks for by `due_ms`.
        """
        CREATE TABLE reported_entitlements (
            user_id TEXT NOT NULL REFERENCES users (user_id), publication_id TEXT NOT NULL, environment TEXT NOT NULL,
            state TEXT NOT NULL, readable INTEGER NOT NULL, sequence INTEGER NOT NULL, due_ms INTEGER,
            PRIMARY KEY (user_id, publication_id, environment));
        CREATE INDEX reported_entitlements_by_due ON reported_entitlements (due_ms) WHERE due_ms IS NOT NULL;
        """,
        // The pending messages by when they were enqueued: `/metrics`' backlog (count and oldest)
        // and the parking of those past their retry window read it, not the table.
        """
        CREATE INDEX outbound_messages_pending_enqueued ON outbound_messages (enqueued_ms) WHERE state = 'pending';
        """,
        // A pending message behind an earlier pending one of its target and ordering key is
        // `waiting` until that one is finished, so that looking for a due message reads only the
        // heads of the queues (`outbound_messages_heads`), however long they are. The index on
        // (state, id) goes: a planner took it for that look and read every pending message for
        // each one it passed; the parked messages, listed by id, have their own.
        """
        ALTER TABLE outbound_messages ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
        UPDATE outbound_messages SET waiting = 1
        WHERE state = 'pending' AND ordering_key IS NOT NULL AND EXISTS (
            SELECT 1 FROM outbound_messages e WHERE e.state = 'pending' AND e.target = outbound_messages.target
                AND e.ordering_key = outbound_messages.ordering_key AND e.id < outbound_messages.id);
        DROP INDEX outbound_messages_due;
        DROP INDEX outbound_messages_by_state;
        CREATE INDEX outbound_messages_heads ON outbound_messages (next_attempt_ms, id) WHERE state = 'pending' AND waiting = 0;
        CREATE INDEX outbound_messages_parked ON outbound_messages (id) WHERE state = 'failed';
        """,
        // Google Play (R18): each purchase token as its newest read gave it (the JSON body kept),
        // the chain it belongs to through `linked_purchase_token` (`chain_id`: the first order of
        // the chain's first token), its user (NULL until linked), and its acknowledgement
        // (`ack_next_ms` NULL when none is owed); each order observed, with its refund, found also
        // by order id; the voids Google reported, the earliest per order, kept also for orders not
        // read yet; the Pub/Sub message ids received, kept seven days.
        """
        CREATE TABLE google_play_purchases (
            purchase_token TEXT PRIMARY KEY, package_name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('subscription', 'product')),
            play_product_id TEXT NOT NULL, user_id TEXT REFERENCES users (user_id), linked_purchase_token TEXT, chain_id TEXT,
            state TEXT NOT NULL, acknowledged INTEGER NOT NULL, environment TEXT NOT NULL, observed_ms INTEGER NOT NULL, read_ms INTEGER NOT NULL,
            body BLOB NOT NULL, ack_attempts INTEGER NOT NULL, ack_next_ms INTEGER, ack_error TEXT);
        CREATE INDEX google_play_purchases_by_user ON google_play_purchases (user_id) WHERE user_id IS NOT NULL;
        CREATE INDEX google_play_purchases_by_linked ON google_play_purchases (linked_purchase_token) WHERE linked_purchase_token IS NOT NULL;
        CREATE INDEX google_play_purchases_ack_due ON google_play_purchases (ack_next_ms) WHERE ack_next_ms IS NOT NULL;
        CREATE TABLE google_play_orders (
            purchase_token TEXT NOT NULL REFERENCES google_play_purchases (purchase_token), order_id TEXT NOT NULL, product_id TEXT NOT NULL,
            start_ms INTEGER NOT NULL, expiry_ms INTEGER, environment TEXT NOT NULL, refunded_ms INTEGER, refund_prorated INTEGER NOT NULL,
            observed_ms INTEGER NOT NULL,
            PRIMARY KEY (purchase_token, order_id));
        CREATE INDEX google_play_orders_by_order ON google_play_orders (order_id);
        CREATE TABLE google_play_voids (
            purchase_token TEXT NOT NULL, order_id TEXT NOT NULL, voided_ms INTEGER NOT NULL, prorated INTEGER NOT NULL,
            PRIMARY KEY (purchase_token, order_id));
        CREATE TABLE google_play_messages (message_id TEXT PRIMARY KEY, received_ms INTEGER NOT NULL);
        CREATE INDEX google_play_messages_by_received ON google_play_messages (received_ms);
        """,
        // Google Play's owners and voids: each token's `obfuscatedExternalAccountId` (`account_id`,
        // its exact bytes; NULL without one, and for a token stored before until its next read),
        // which no other user may be given; when each void was recorded (`recorded_ms`; those
        // stored before count as recorded at their voided time), so that the voids of tokens
        // never read are forgotten after the Voided Purchases API's 30 days.
        """
        ALTER TABLE google_play_purchases ADD COLUMN account_id TEXT;
        ALTER TABLE google_play_voids ADD COLUMN recorded_ms INTEGER NOT NULL DEFAULT 0;
        UPDATE google_play_voids SET recorded_ms = voided_ms;
        CREATE INDEX google_play_voids_by_recorded ON google_play_voids (recorded_ms);
        """,
        // Each user's purchase history as ``StoredHistory`` encodes it, written with every change
        // of it (``StorePrimitives/recordChanges(_:origin:)``); a user without a row (none written
        // since this migration) has theirs read from the tables, so nothing is filled in here.
        """
        CREATE TABLE user_histories (user_id TEXT PRIMARY KEY, history BLOB NOT NULL);
        """,
    ])
}
