import MastheadPostgreSQL

/// The PostgreSQL store's schema, as numbered migrations recorded in the `migrations` table.
///
/// It starts at the SQLite schema's latest state, with PostgreSQL's types: `bigint` milliseconds,
/// `boolean` flags, `bytea` bodies, and ids in the `C` collation so that they sort by the bytes of
/// their UTF-8, as SQLite sorts them.
enum PostgreSQLSchema {
    /// The advisory lock every process migrating the schema takes: "Masthead" in ASCII.
    static let migrationLock: Int64 = 0x4D61_7374_6865_6164

    /// Each entry runs once, in order, inside a transaction with its record; entries are only appended.
    static let migrator = PostgreSQLMigrator(
        migrations: [
            """
            CREATE TABLE users (user_id text COLLATE "C" PRIMARY KEY, created_ms bigint NOT NULL);
            CREATE TABLE subscriptions (
                environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL,
                user_id text COLLATE "C" NOT NULL REFERENCES users (user_id), latest_receipt text, linked_ms bigint NOT NULL,
                PRIMARY KEY (environment, original_transaction_id));
            CREATE INDEX subscriptions_by_user ON subscriptions (user_id);
            CREATE TABLE transactions (
                environment text COLLATE "C" NOT NULL, transaction_id text COLLATE "C" NOT NULL,
                original_transaction_id text COLLATE "C" NOT NULL, product_id text NOT NULL,
                purchase_ms bigint NOT NULL, expires_ms bigint, cancellation_ms bigint,
                is_upgraded boolean NOT NULL, is_trial boolean NOT NULL, is_intro_offer boolean NOT NULL,
                offer text, signed_date_ms bigint, unsigned_cancellation_ms bigint,
                PRIMARY KEY (environment, transaction_id));
            CREATE INDEX transactions_by_subscription ON transactions (environment, original_transaction_id);
            CREATE INDEX transactions_by_expiry ON transactions (expires_ms) WHERE expires_ms IS NOT NULL;
            CREATE TABLE renewal_history (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL, evidence_ms bigint,
                product_id text, auto_renew_product_id text, auto_renew_on boolean, billing_retry boolean NOT NULL,
                grace_expires_ms bigint, expiration_intent text);
            CREATE INDEX renewal_history_by_subscription ON renewal_history (environment, original_transaction_id);
            CREATE TABLE pending_receipts (
                environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL, latest_receipt text NOT NULL,
                PRIMARY KEY (environment, original_transaction_id));
            CREATE TABLE notifications (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, received_ms bigint NOT NULL, notification_type text NOT NULL,
                subtype text, notification_uuid text COLLATE "C", environment text, original_transaction_ids text NOT NULL, body text NOT NULL);
            CREATE UNIQUE INDEX notifications_by_uuid ON notifications (notification_uuid) WHERE notification_uuid IS NOT NULL;
            CREATE TABLE issues (
                publication_id text COLLATE "C" NOT NULL, issue_id text COLLATE "C" NOT NULL, title text, published_ms bigint NOT NULL,
                free boolean NOT NULL, PRIMARY KEY (publication_id, issue_id));
            CREATE TABLE changes (
                id bigint PRIMARY KEY, origin bigint NOT NULL, user_id text, publication_id text, issue_id text,
                CHECK ((user_id IS NULL) != (publication_id IS NULL AND issue_id IS NULL)));
            CREATE TABLE app_account_tokens (
                token text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C" NOT NULL REFERENCES users (user_id), linked_ms bigint NOT NULL);
            CREATE INDEX app_account_tokens_by_user ON app_account_tokens (user_id);
            CREATE TABLE subscription_app_account_tokens (
                token text COLLATE "C" NOT NULL, environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL,
                PRIMARY KEY (token, environment, original_transaction_id));
            CREATE TABLE rejected_notifications (
                id bigint PRIMARY KEY, received_ms bigint NOT NULL, reason text NOT NULL, bytes_before bigint NOT NULL, body bytea NOT NULL);
            CREATE INDEX rejected_notifications_by_bytes_before ON rejected_notifications (bytes_before);
            """,
            // Rejected notifications by kind, each kind within its own bound (see SQLiteSchema).
            """
            ALTER TABLE rejected_notifications ADD COLUMN kind text COLLATE "C" NOT NULL DEFAULT 'signed';
            ALTER TABLE rejected_notifications ADD COLUMN kind_seq bigint NOT NULL DEFAULT 0;
            UPDATE rejected_notifications SET kind_seq = id;
            DROP INDEX rejected_notifications_by_bytes_before;
            CREATE INDEX rejected_notifications_by_kind_seq ON rejected_notifications (kind, kind_seq);
            CREATE INDEX rejected_notifications_by_kind_bytes ON rejected_notifications (kind, bytes_before);
            """,
            // How Apple revoked a transaction, R5.3 (see SQLiteSchema).
            """
            ALTER TABLE transactions ADD COLUMN revocation_type text;
            ALTER TABLE transactions ADD COLUMN revocation_percentage integer;
            """,
            // Set App Account Token calls owed to Apple (see SQLiteSchema).
            """
            CREATE TABLE app_account_token_updates (
                environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL, user_id text COLLATE "C" NOT NULL,
                app_account_token text COLLATE "C" NOT NULL, state text COLLATE "C" NOT NULL, attempts integer NOT NULL,
                next_attempt_ms bigint NOT NULL, queued_ms bigint NOT NULL, last_error text,
                PRIMARY KEY (environment, original_transaction_id));
            CREATE INDEX app_account_token_updates_by_due ON app_account_token_updates (state, next_attempt_ms);
            CREATE INDEX subscription_app_account_tokens_by_subscription ON subscription_app_account_tokens (environment, original_transaction_id);
            """,
            // The offer and billing terms of signed transactions and renewal infos (see SQLiteSchema).
            """
            ALTER TABLE transactions ADD COLUMN terms text;
            ALTER TABLE renewal_history ADD COLUMN terms text;
            """,
            // Consumption information for refund requests (see SQLiteSchema).
            """
            CREATE TABLE issues_served (
                user_id text COLLATE "C" NOT NULL, publication_id text COLLATE "C" NOT NULL, issue_id text COLLATE "C" NOT NULL,
                first_served_ms bigint NOT NULL, PRIMARY KEY (user_id, publication_id, issue_id));
            CREATE TABLE consumption_consents (user_id text COLLATE "C" PRIMARY KEY, consented boolean NOT NULL, recorded_ms bigint NOT NULL);
            CREATE TABLE consumption_requests (
                environment text COLLATE "C" NOT NULL, transaction_id text COLLATE "C" NOT NULL, user_id text COLLATE "C" NOT NULL,
                received_ms bigint NOT NULL, deadline_ms bigint NOT NULL, attempts integer NOT NULL, next_attempt_ms bigint NOT NULL,
                PRIMARY KEY (environment, transaction_id));
            CREATE INDEX consumption_requests_by_next_attempt ON consumption_requests (next_attempt_ms);
            """,
            // The publisher's grants, R17 (see SQLiteSchema).
            """
            CREATE TABLE grants (
                grant_id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C" NOT NULL REFERENCES users (user_id),
                source text COLLATE "C" NOT NULL, kind text COLLATE "C" NOT NULL CHECK (kind IN ('span', 'issues')),
                publications text NOT NULL, access text COLLATE "C", stream_window integer, issue_ids text,
                start_ms bigint NOT NULL, end_ms bigint, revoked_ms bigint, written_ms bigint NOT NULL);
            CREATE INDEX grants_by_user ON grants (user_id);
            CREATE INDEX grants_by_source ON grants (source, grant_id);
            """,
            // Gift codes, institutional licences and their memberships (see SQLiteSchema).
            """
            CREATE TABLE gift_codes (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, code_hash bytea NOT NULL UNIQUE, publications text COLLATE "C" NOT NULL,
                access text NOT NULL, duration text NOT NULL, redeem_by_ms bigint NOT NULL, created_ms bigint NOT NULL,
                redeemed_by text COLLATE "C", redeemed_ms bigint);
            CREATE TABLE licences (
                licence_id text COLLATE "C" PRIMARY KEY, publications text COLLATE "C" NOT NULL, access text NOT NULL, start_ms bigint NOT NULL,
                end_ms bigint, seats integer NOT NULL, updated_ms bigint NOT NULL);
            CREATE TABLE licence_members (
                licence_id text COLLATE "C" NOT NULL REFERENCES licences (licence_id), user_id text COLLATE "C" NOT NULL REFERENCES users (user_id),
                number integer NOT NULL, joined_ms bigint NOT NULL, left_ms bigint,
                PRIMARY KEY (licence_id, user_id, number));
            CREATE UNIQUE INDEX licence_members_current ON licence_members (licence_id, user_id) WHERE left_ms IS NULL;
            CREATE INDEX licence_members_by_user ON licence_members (user_id);
            """,
            // Notifications by subscription, and whether each came signed (see SQLiteSchema). A
            // body is read as JSON only when its text names `signedPayload`.
            """
            CREATE TABLE notification_subscriptions (
                environment text COLLATE "C" NOT NULL, original_transaction_id text COLLATE "C" NOT NULL,
                notification_id bigint NOT NULL REFERENCES notifications (id),
                PRIMARY KEY (environment, original_transaction_id, notification_id));
            INSERT INTO notification_subscriptions (environment, original_transaction_id, notification_id)
            SELECT DISTINCT n.environment, o.id, n.id FROM notifications n CROSS JOIN LATERAL unnest(string_to_array(n.original_transaction_ids, ',')) AS o (id)
            WHERE n.environment IS NOT NULL AND o.id <> '';
            ALTER TABLE notifications ADD COLUMN signed boolean NOT NULL DEFAULT false;
            UPDATE notifications SET signed = true
            WHERE CASE WHEN strpos(body, '"signedPayload"') > 0 THEN (body::json -> 'signedPayload') IS NOT NULL ELSE false END;
            """,
            // The outbox (see SQLiteSchema).
            """
            CREATE TABLE outbound_messages (
                id bigint PRIMARY KEY, kind text COLLATE "C" NOT NULL, target text COLLATE "C" NOT NULL, ordering_key text COLLATE "C",
                event_id text COLLATE "C" NOT NULL, content_type text NOT NULL, body bytea NOT NULL, state text COLLATE "C" NOT NULL,
                attempts integer NOT NULL, enqueued_ms bigint NOT NULL, next_attempt_ms bigint NOT NULL, finished_ms bigint, last_status integer,
                last_error text);
            CREATE INDEX outbound_messages_due ON outbound_messages (next_attempt_ms) WHERE state = 'pending';
            CREATE INDEX outbound_messages_pending_by_key ON outbound_messages (target, ordering_key, id) WHERE state = 'pending';
            CREATE INDEX outbound_messages_by_state ON outbound_messages (state, id);
            CREATE INDEX outbound_messages_finished ON outbound_messages (finished_ms) WHERE state <> 'pending';
            """,
            // What `entitlements.changed` events last reported (see SQLiteSchema).
            """
            CREATE TABLE reported_entitlements (
                user_id text COLLATE "C" NOT NULL REFERENCES users (user_id), publication_id text COLLATE "C" NOT NULL,
                environment text COLLATE "C" NOT NULL, state text NOT NULL, readable integer NOT NULL, sequence bigint NOT NULL, due_ms bigint,
                PRIMARY KEY (user_id, publication_id, environment));
            CREATE INDEX reported_entitlements_by_due ON reported_entitlements (due_ms) WHERE due_ms IS NOT NULL;
            """,
            // The pending messages by when they were enqueued (see SQLiteSchema).
            """
            CREATE INDEX outbound_messages_pending_enqueued ON outbound_messages (enqueued_ms) WHERE state = 'pending';
            """,
            // The queues' heads (see SQLiteSchema). `waiting` is 0 or 1 as in SQLite, so that the
            // statements and the partial index's predicate are one text for both backends.
            """
            ALTER TABLE outbound_messages ADD COLUMN waiting integer NOT NULL DEFAULT 0;
            UPDATE outbound_messages m SET waiting = 1
            WHERE m.state = 'pending' AND m.ordering_key IS NOT NULL AND EXISTS (
                SELECT 1 FROM outbound_messages e WHERE e.state = 'pending' AND e.target = m.target AND e.ordering_key = m.ordering_key AND e.id < m.id);
            DROP INDEX outbound_messages_due;
            DROP INDEX outbound_messages_by_state;
            CREATE INDEX outbound_messages_heads ON outbound_messages (next_attempt_ms, id) WHERE state = 'pending' AND waiting = 0;
            CREATE INDEX outbound_messages_parked ON outbound_messages (id) WHERE state = 'failed';
            """,
            // Google Play, R18 (see SQLiteSchema).
            """
            CREATE TABLE google_play_purchases (
                purchase_token text COLLATE "C" PRIMARY KEY, package_name text COLLATE "C" NOT NULL,
                kind text COLLATE "C" NOT NULL CHECK (kind IN ('subscription', 'product')), play_product_id text COLLATE "C" NOT NULL,
                user_id text COLLATE "C" REFERENCES users (user_id), linked_purchase_token text COLLATE "C", chain_id text COLLATE "C",
                state text COLLATE "C" NOT NULL, acknowledged boolean NOT NULL, environment text COLLATE "C" NOT NULL, observed_ms bigint NOT NULL,
                read_ms bigint NOT NULL, body bytea NOT NULL, ack_attempts integer NOT NULL, ack_next_ms bigint, ack_error text);
            CREATE INDEX google_play_purchases_by_user ON google_play_purchases (user_id) WHERE user_id IS NOT NULL;
            CREATE INDEX google_play_purchases_by_linked ON google_play_purchases (linked_purchase_token) WHERE linked_purchase_token IS NOT NULL;
            CREATE INDEX google_play_purchases_ack_due ON google_play_purchases (ack_next_ms) WHERE ack_next_ms IS NOT NULL;
            CREATE TABLE google_play_orders (
                purchase_token text COLLATE "C" NOT NULL REFERENCES google_play_purchases (purchase_token), order_id text COLLATE "C" NOT NULL,
                product_id text COLLATE "C" NOT NULL, start_ms bigint NOT NULL, expiry_ms bigint, environment text COLLATE "C" NOT NULL,
                refunded_ms bigint, refund_prorated boolean NOT NULL, observed_ms bigint NOT NULL,
                PRIMARY KEY (purchase_token, order_id));
            CREATE INDEX google_play_orders_by_order ON google_play_orders (order_id);
            CREATE TABLE google_play_voids (
                purchase_token text COLLATE "C" NOT NULL, order_id text COLLATE "C" NOT NULL, voided_ms bigint NOT NULL, prorated boolean NOT NULL,
                PRIMARY KEY (purchase_token, order_id));
            CREATE TABLE google_play_messages (message_id text COLLATE "C" PRIMARY KEY, received_ms bigint NOT NULL);
            CREATE INDEX google_play_messages_by_received ON google_play_messages (received_ms);
            """,
            // Google Play's owners and voids (see SQLiteSchema).
            """
            ALTER TABLE google_play_purchases ADD COLUMN account_id text COLLATE "C";
            ALTER TABLE google_play_voids ADD COLUMN recorded_ms bigint NOT NULL DEFAULT 0;
            UPDATE google_play_voids SET recorded_ms = voided_ms;
            CREATE INDEX google_play_voids_by_recorded ON google_play_voids (recorded_ms);
            """,
            // Each user's stored purchase history (see SQLiteSchema).
            """
            CREATE TABLE user_histories (user_id text COLLATE "C" PRIMARY KEY, history bytea NOT NULL);
            """,
        ],
        lockKey: migrationLock)
}
