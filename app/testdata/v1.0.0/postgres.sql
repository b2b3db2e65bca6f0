--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: public; Type: SCHEMA; Schema: -; Owner: -
--



SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE api_keys (
    id bigint NOT NULL,
    name character varying(400) NOT NULL,
    prefix character varying(16) NOT NULL,
    hash character varying(64) NOT NULL,
    plan character varying(16) NOT NULL,
    per_minute bigint DEFAULT 0 NOT NULL,
    per_day bigint DEFAULT 0 NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    banned_until timestamp with time zone,
    last_used_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: api_keys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE api_keys_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: api_keys_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE api_keys_id_seq OWNED BY api_keys.id;


--
-- Name: categories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE categories (
    id bigint NOT NULL,
    name character varying(400) NOT NULL,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: categories_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE categories_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: categories_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE categories_id_seq OWNED BY categories.id;


--
-- Name: idempotency_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE idempotency_records (
    id bigint NOT NULL,
    api_key_id bigint NOT NULL,
    idempotency_key character varying(255) NOT NULL,
    fingerprint character varying(64) NOT NULL,
    status bigint NOT NULL,
    body bytea,
    location character varying(2000) DEFAULT ''::character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: idempotency_records_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE idempotency_records_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: idempotency_records_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE idempotency_records_id_seq OWNED BY idempotency_records.id;


--
-- Name: orders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE orders (
    id bigint NOT NULL,
    pet_id bigint NOT NULL,
    quantity integer NOT NULL,
    ship_date timestamp with time zone,
    status character varying(16) NOT NULL,
    complete boolean NOT NULL,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: orders_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE orders_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: orders_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE orders_id_seq OWNED BY orders.id;


--
-- Name: pets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE pets (
    id bigint NOT NULL,
    name character varying(400) NOT NULL,
    category_id bigint NOT NULL,
    status character varying(16) NOT NULL,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: pets_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE pets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: pets_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE pets_id_seq OWNED BY pets.id;


--
-- Name: staffs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE staffs (
    id bigint NOT NULL,
    username character varying(64) NOT NULL,
    password_hash character varying(100) NOT NULL,
    role character varying(16) NOT NULL,
    disabled_at timestamp with time zone,
    last_login_at timestamp with time zone,
    created_at timestamp with time zone,
    updated_at timestamp with time zone
);


--
-- Name: staffs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE staffs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: staffs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE staffs_id_seq OWNED BY staffs.id;


--
-- Name: status_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE status_changes (
    id bigint NOT NULL,
    pet_id bigint NOT NULL,
    order_id bigint,
    action character varying(16) NOT NULL,
    pet_from character varying(16) NOT NULL,
    pet_to character varying(16) NOT NULL,
    order_from character varying(16) DEFAULT ''::character varying NOT NULL,
    order_to character varying(16) DEFAULT ''::character varying NOT NULL,
    actor character varying(200) NOT NULL,
    created_at timestamp with time zone
);


--
-- Name: status_changes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE status_changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: status_changes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE status_changes_id_seq OWNED BY status_changes.id;


--
-- Name: api_keys id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY api_keys ALTER COLUMN id SET DEFAULT nextval('api_keys_id_seq'::regclass);


--
-- Name: categories id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY categories ALTER COLUMN id SET DEFAULT nextval('categories_id_seq'::regclass);


--
-- Name: idempotency_records id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY idempotency_records ALTER COLUMN id SET DEFAULT nextval('idempotency_records_id_seq'::regclass);


--
-- Name: orders id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY orders ALTER COLUMN id SET DEFAULT nextval('orders_id_seq'::regclass);


--
-- Name: pets id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY pets ALTER COLUMN id SET DEFAULT nextval('pets_id_seq'::regclass);


--
-- Name: staffs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY staffs ALTER COLUMN id SET DEFAULT nextval('staffs_id_seq'::regclass);


--
-- Name: status_changes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY status_changes ALTER COLUMN id SET DEFAULT nextval('status_changes_id_seq'::regclass);


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO api_keys VALUES (2, 'Dashboard', 'psk_hyzogwjh', '32b3ac51b7d23df7698636462d27c53a85dc84019e037d9d4adef92045618baf', 'enterprise', 500, 20000, NULL, NULL, NULL, NULL, '2026-11-23 15:23:04.736325+00', '2026-11-23 15:23:04.736325+00');
INSERT INTO api_keys VALUES (3, 'Old app', 'psk_e3o4v7k4', '036da30634b81ed110809db4d6f6c8ef2872a0d37f13db695f415b718bd81ec3', 'free', 0, 0, NULL, '2026-11-23 15:23:05.224518+00', NULL, NULL, '2026-11-23 15:23:04.942949+00', '2026-11-23 15:23:05.22456+00');
INSERT INTO api_keys VALUES (1, 'Acme shop', 'psk_ayh2tygh', '0e24ab605125ab72df6bc04e017fee46a64cd527313a78a96a8c789a544c928d', 'pro', 0, 0, NULL, NULL, NULL, '2026-11-23 15:23:05.839416+00', '2026-11-23 15:23:04.509585+00', '2026-11-23 15:23:04.509585+00');


--
-- Data for Name: categories; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO categories VALUES (1, 'Dogs', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');
INSERT INTO categories VALUES (2, 'Cats', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');
INSERT INTO categories VALUES (3, 'Birds', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');
INSERT INTO categories VALUES (4, 'Fish', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');
INSERT INTO categories VALUES (5, 'Reptiles', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');
INSERT INTO categories VALUES (6, 'Small animals', '2026-11-23 15:23:03.963721+00', '2026-11-23 15:23:03.963721+00');


--
-- Data for Name: idempotency_records; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO idempotency_records VALUES (1, 1, 'fixture-order-1', 'b4e93ac910be1cc853462f8ebf57a17eb36edf9a175ce9641ab91722b2b32e63', 201, '\x7b226964223a31332c227065744964223a312c227175616e74697479223a312c22737461747573223a22706c61636564222c22636f6d706c657465223a66616c73652c22637265617465644174223a22323032362d31312d32335431353a32333a30352e3834323731355a227d', '/v1/store/orders/13', '2026-11-23 15:23:05.839492+00');


--
-- Data for Name: orders; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO orders VALUES (1, 13, 1, '2026-06-12 21:00:00+00', 'placed', false, '2026-06-01 21:58:50.044827+00', '2026-06-01 21:58:50.044827+00');
INSERT INTO orders VALUES (2, 9, 1, NULL, 'approved', false, '2026-11-06 18:42:13.375545+00', '2026-11-08 18:16:58.718073+00');
INSERT INTO orders VALUES (3, 15, 1, NULL, 'delivered', true, '2026-11-08 01:53:59.848141+00', '2026-11-11 08:22:40.610066+00');
INSERT INTO orders VALUES (4, 2, 1, NULL, 'cancelled', false, '2026-10-16 23:08:29.792672+00', '2026-10-19 13:53:50.779599+00');
INSERT INTO orders VALUES (5, 8, 1, NULL, 'delivered', true, '2026-09-15 01:34:55.963838+00', '2026-09-19 08:59:48.325696+00');
INSERT INTO orders VALUES (6, 6, 1, NULL, 'placed', false, '2026-06-05 23:27:03.337848+00', '2026-06-05 23:27:03.337848+00');
INSERT INTO orders VALUES (7, 5, 1, NULL, 'approved', false, '2026-06-17 08:49:32.074464+00', '2026-06-17 11:26:46.24646+00');
INSERT INTO orders VALUES (8, 24, 1, NULL, 'delivered', true, '2026-09-06 00:35:26.548889+00', '2026-09-09 22:28:21.776643+00');
INSERT INTO orders VALUES (9, 20, 1, NULL, 'cancelled', false, '2026-07-31 02:29:59.066361+00', '2026-08-02 20:34:43.540287+00');
INSERT INTO orders VALUES (10, 19, 1, '2026-06-21 08:00:00+00', 'delivered', true, '2026-06-12 08:27:10.047626+00', '2026-06-17 01:42:20.524393+00');
INSERT INTO orders VALUES (11, 16, 1, '2026-10-22 17:00:00+00', 'placed', false, '2026-10-12 17:19:37.736474+00', '2026-10-12 17:19:37.736474+00');
INSERT INTO orders VALUES (12, 12, 1, NULL, 'approved', false, '2026-09-17 10:41:14.815763+00', '2026-09-17 13:26:05.51955+00');
INSERT INTO orders VALUES (13, 1, 1, NULL, 'placed', false, '2026-11-23 15:23:05.842715+00', '2026-11-23 15:23:05.842715+00');


--
-- Data for Name: pets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO pets VALUES (2, 'Salem', 2, 'available', '2026-10-16 06:52:43.140785+00', '2026-10-19 13:53:50.779599+00');
INSERT INTO pets VALUES (3, 'Ziggy', 3, 'available', '2026-11-01 19:51:25.261158+00', '2026-11-01 19:51:25.261158+00');
INSERT INTO pets VALUES (4, 'Bailey', 1, 'sold', '2026-10-21 07:31:14.183339+00', '2026-10-23 21:58:36.727817+00');
INSERT INTO pets VALUES (5, 'Tucker', 1, 'pending', '2026-06-16 16:50:21.149175+00', '2026-06-17 08:49:32.074464+00');
INSERT INTO pets VALUES (6, 'Squeak', 6, 'pending', '2026-06-04 04:51:27.309648+00', '2026-06-05 23:27:03.337848+00');
INSERT INTO pets VALUES (7, 'Cricket', 3, 'available', '2026-06-09 07:01:12.836418+00', '2026-06-09 07:01:12.836418+00');
INSERT INTO pets VALUES (8, 'Snowball', 6, 'sold', '2026-09-13 03:03:27.274889+00', '2026-09-19 08:59:48.325696+00');
INSERT INTO pets VALUES (9, 'Rosie', 1, 'pending', '2026-11-05 22:00:42.770819+00', '2026-11-06 18:42:13.375545+00');
INSERT INTO pets VALUES (10, 'Blue', 3, 'available', '2026-06-15 10:24:45.317899+00', '2026-06-15 10:24:45.317899+00');
INSERT INTO pets VALUES (11, 'Leo', 2, 'available', '2026-10-09 01:19:23.086512+00', '2026-10-09 01:19:23.086512+00');
INSERT INTO pets VALUES (12, 'Echo', 3, 'pending', '2026-09-17 01:40:25.294569+00', '2026-09-17 10:41:14.815763+00');
INSERT INTO pets VALUES (13, 'Penny', 1, 'pending', '2026-06-01 12:15:40.65375+00', '2026-06-01 21:58:50.044827+00');
INSERT INTO pets VALUES (14, 'Noodle', 5, 'available', '2026-10-23 10:52:15.0413+00', '2026-10-23 10:52:15.0413+00');
INSERT INTO pets VALUES (15, 'Feather', 3, 'sold', '2026-11-06 22:12:59.053277+00', '2026-11-11 08:22:40.610066+00');
INSERT INTO pets VALUES (16, 'Noodle', 3, 'pending', '2026-10-10 18:36:46.36836+00', '2026-10-12 17:19:37.736474+00');
INSERT INTO pets VALUES (17, 'Pumpkin', 2, 'available', '2026-10-13 03:16:18.160359+00', '2026-10-13 03:16:18.160359+00');
INSERT INTO pets VALUES (18, 'Marshmallow', 6, 'available', '2026-07-28 16:42:42.117826+00', '2026-07-28 16:42:42.117826+00');
INSERT INTO pets VALUES (19, 'Pumpkin', 6, 'sold', '2026-06-11 04:40:07.582577+00', '2026-06-17 01:42:20.524393+00');
INSERT INTO pets VALUES (20, 'Sheldon', 5, 'available', '2026-07-30 04:06:31.509631+00', '2026-08-02 20:34:43.540287+00');
INSERT INTO pets VALUES (21, 'Pascal', 5, 'available', '2026-07-24 16:53:27.28191+00', '2026-07-24 16:53:27.28191+00');
INSERT INTO pets VALUES (22, 'Pepper', 6, 'available', '2026-08-02 20:20:39.5128+00', '2026-08-02 20:20:39.5128+00');
INSERT INTO pets VALUES (23, 'Gizmo', 6, 'available', '2026-08-22 18:38:19.849915+00', '2026-08-22 18:38:19.849915+00');
INSERT INTO pets VALUES (24, 'Sunny', 5, 'sold', '2026-09-05 20:56:27.230717+00', '2026-09-09 22:28:21.776643+00');
INSERT INTO pets VALUES (25, 'Birdie', 3, 'available', '2026-06-03 08:26:07.398918+00', '2026-06-03 08:26:07.398918+00');
INSERT INTO pets VALUES (26, 'Hazel', 6, 'available', '2026-06-11 17:18:22.183152+00', '2026-06-11 17:18:22.183152+00');
INSERT INTO pets VALUES (27, 'Muffin', 6, 'available', '2026-11-21 22:17:15.362933+00', '2026-11-21 22:17:15.362933+00');
INSERT INTO pets VALUES (28, 'Monty', 5, 'available', '2026-08-09 21:33:11.125636+00', '2026-08-09 21:33:11.125636+00');
INSERT INTO pets VALUES (29, 'Ziggy', 5, 'available', '2026-10-11 14:52:12.815357+00', '2026-10-11 14:52:12.815357+00');
INSERT INTO pets VALUES (30, 'Jasper', 2, 'available', '2026-08-21 03:01:16.437401+00', '2026-08-21 03:01:16.437401+00');
INSERT INTO pets VALUES (1, 'Leo', 2, 'pending', '2026-09-23 10:57:52.199049+00', '2026-11-23 15:23:05.842715+00');


--
-- Data for Name: staffs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO staffs VALUES (1, 'admin', '$2a$10$n0qL36xqWUanR568zJeQ..v2QeYTVK4ftNoh07XmCEBCA7neOzFtW', 'admin', NULL, NULL, '2026-11-23 15:23:05.614173+00', '2026-11-23 15:23:05.614173+00');


--
-- Data for Name: status_changes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO status_changes VALUES (1, 13, 1, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-06-01 21:58:50.044827+00');
INSERT INTO status_changes VALUES (2, 9, 2, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-11-06 18:42:13.375545+00');
INSERT INTO status_changes VALUES (3, 9, 2, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-11-08 18:16:58.718073+00');
INSERT INTO status_changes VALUES (4, 15, 3, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-11-08 01:53:59.848141+00');
INSERT INTO status_changes VALUES (5, 15, 3, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-11-10 06:11:34.967706+00');
INSERT INTO status_changes VALUES (6, 15, 3, 'deliver', 'pending', 'sold', 'approved', 'delivered', 'seed', '2026-11-11 08:22:40.610066+00');
INSERT INTO status_changes VALUES (7, 2, 4, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-10-16 23:08:29.792672+00');
INSERT INTO status_changes VALUES (8, 2, 4, 'cancel', 'pending', 'available', 'placed', 'cancelled', 'seed', '2026-10-19 13:53:50.779599+00');
INSERT INTO status_changes VALUES (9, 8, 5, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-09-15 01:34:55.963838+00');
INSERT INTO status_changes VALUES (10, 8, 5, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-09-16 17:04:17.192405+00');
INSERT INTO status_changes VALUES (11, 8, 5, 'deliver', 'pending', 'sold', 'approved', 'delivered', 'seed', '2026-09-19 08:59:48.325696+00');
INSERT INTO status_changes VALUES (12, 6, 6, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-06-05 23:27:03.337848+00');
INSERT INTO status_changes VALUES (13, 5, 7, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-06-17 08:49:32.074464+00');
INSERT INTO status_changes VALUES (14, 5, 7, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-06-17 11:26:46.24646+00');
INSERT INTO status_changes VALUES (15, 24, 8, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-09-06 00:35:26.548889+00');
INSERT INTO status_changes VALUES (16, 24, 8, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-09-08 20:29:56.31712+00');
INSERT INTO status_changes VALUES (17, 24, 8, 'deliver', 'pending', 'sold', 'approved', 'delivered', 'seed', '2026-09-09 22:28:21.776643+00');
INSERT INTO status_changes VALUES (18, 20, 9, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-07-31 02:29:59.066361+00');
INSERT INTO status_changes VALUES (19, 20, 9, 'cancel', 'pending', 'available', 'placed', 'cancelled', 'seed', '2026-08-02 20:34:43.540287+00');
INSERT INTO status_changes VALUES (20, 19, 10, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-06-12 08:27:10.047626+00');
INSERT INTO status_changes VALUES (21, 19, 10, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-06-14 19:01:49.570027+00');
INSERT INTO status_changes VALUES (22, 19, 10, 'deliver', 'pending', 'sold', 'approved', 'delivered', 'seed', '2026-06-17 01:42:20.524393+00');
INSERT INTO status_changes VALUES (23, 16, 11, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-10-12 17:19:37.736474+00');
INSERT INTO status_changes VALUES (24, 12, 12, 'place', 'available', 'pending', '', 'placed', 'seed', '2026-09-17 10:41:14.815763+00');
INSERT INTO status_changes VALUES (25, 12, 12, 'approve', 'pending', 'pending', 'placed', 'approved', 'seed', '2026-09-17 13:26:05.51955+00');
INSERT INTO status_changes VALUES (26, 4, NULL, 'set_status', 'available', 'sold', '', '', 'seed', '2026-10-23 21:58:36.727817+00');
INSERT INTO status_changes VALUES (27, 1, 13, 'place', 'available', 'pending', '', 'placed', 'api-key:1', '2026-11-23 15:23:05.842715+00');


--
-- Name: api_keys_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('api_keys_id_seq', 3, true);


--
-- Name: categories_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('categories_id_seq', 6, true);


--
-- Name: idempotency_records_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('idempotency_records_id_seq', 1, true);


--
-- Name: orders_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('orders_id_seq', 13, true);


--
-- Name: pets_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('pets_id_seq', 30, true);


--
-- Name: staffs_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('staffs_id_seq', 1, true);


--
-- Name: status_changes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('status_changes_id_seq', 27, true);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: categories categories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY categories
    ADD CONSTRAINT categories_pkey PRIMARY KEY (id);


--
-- Name: idempotency_records idempotency_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY idempotency_records
    ADD CONSTRAINT idempotency_records_pkey PRIMARY KEY (id);


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);


--
-- Name: pets pets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY pets
    ADD CONSTRAINT pets_pkey PRIMARY KEY (id);


--
-- Name: staffs staffs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY staffs
    ADD CONSTRAINT staffs_pkey PRIMARY KEY (id);


--
-- Name: status_changes status_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY status_changes
    ADD CONSTRAINT status_changes_pkey PRIMARY KEY (id);


--
-- Name: idx_api_keys_prefix; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_api_keys_prefix ON api_keys USING btree (prefix);


--
-- Name: idx_categories_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_categories_name ON categories USING btree (name);


--
-- Name: idx_idempotency_records_created_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_idempotency_records_created_at ON idempotency_records USING btree (created_at);


--
-- Name: idx_idempotency_records_scope; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_idempotency_records_scope ON idempotency_records USING btree (api_key_id, idempotency_key);


--
-- Name: idx_orders_live_pet; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_orders_live_pet ON orders USING btree (pet_id) WHERE (((status)::text = 'placed'::text) OR ((status)::text = 'approved'::text));


--
-- Name: idx_orders_pet_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_orders_pet_id_id ON orders USING btree (pet_id, id);


--
-- Name: idx_orders_status_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_orders_status_id ON orders USING btree (status, id);


--
-- Name: idx_pets_category_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_pets_category_id ON pets USING btree (category_id, id);


--
-- Name: idx_pets_status_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_pets_status_id ON pets USING btree (status, id);


--
-- Name: idx_staffs_username; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_staffs_username ON staffs USING btree (username);


--
-- Name: idx_status_changes_order_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_status_changes_order_id_id ON status_changes USING btree (order_id, id);


--
-- Name: idx_status_changes_pet_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_status_changes_pet_id_id ON status_changes USING btree (pet_id, id);


--
-- Name: orders fk_orders_pet; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY orders
    ADD CONSTRAINT fk_orders_pet FOREIGN KEY (pet_id) REFERENCES pets(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: pets fk_pets_category; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY pets
    ADD CONSTRAINT fk_pets_category FOREIGN KEY (category_id) REFERENCES categories(id) ON UPDATE CASCADE ON DELETE RESTRICT;


--
-- Name: status_changes fk_status_changes_order; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY status_changes
    ADD CONSTRAINT fk_status_changes_order FOREIGN KEY (order_id) REFERENCES orders(id) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- Name: status_changes fk_status_changes_pet; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY status_changes
    ADD CONSTRAINT fk_status_changes_pet FOREIGN KEY (pet_id) REFERENCES pets(id) ON UPDATE CASCADE ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


