"""Words the synthetic organisation is made of: people, teams, product areas, condition shapes.

Kept apart from the generator so that the generator reads as the rules that combine them.
"""

from __future__ import annotations

# Enough names for the largest organisation; smaller ones take the first few.
PEOPLE: tuple[str, ...] = (
    "Maya Patel",
    "Jonas Weber",
    "Aisha Okafor",
    "Lucas Martin",
    "Sofia Rossi",
    "Kenji Tanaka",
    "Emma Johansson",
    "Diego Alvarez",
    "Priya Raman",
    "Noah Fischer",
    "Chloe Dubois",
    "Omar Haddad",
    "Hannah Schmidt",
    "Mateo Silva",
    "Yuki Sato",
    "Grace Kim",
    "Liam O'Brien",
    "Zara Ahmed",
    "Felix Wagner",
    "Isabel Costa",
    "Ethan Brooks",
    "Leila Nasser",
    "Tomasz Nowak",
    "Amara Diallo",
    "Oliver Hughes",
    "Mei Chen",
    "Rafael Souza",
    "Nina Petrova",
    "Samuel Adeyemi",
    "Clara Moreau",
    "Arjun Mehta",
    "Lena Hoffmann",
    "Victor Lindqvist",
    "Fatima Zahra",
    "Daniel Cohen",
    "Ines Ferreira",
    "Kai Müller",
    "Ava Thompson",
    "Hugo Laurent",
    "Sara Lindberg",
    "Ravi Kumar",
    "Elif Yilmaz",
    "Marco Bianchi",
    "Julia Nowak",
    "Theo Becker",
    "Anya Ivanova",
    "Pedro Santos",
    "Lina Berg",
    "Jack Wilson",
    "Naomi Levi",
    "Ibrahim Musa",
    "Paula Gómez",
    "Erik Nilsson",
    "Rosa Martins",
    "Adam Novak",
    "Mila Horvat",
    "Sean Murphy",
    "Hana Suzuki",
    "Leo Richter",
    "Carmen Ortiz",
)

TEAMS: tuple[str, ...] = (
    "Growth",
    "Payments",
    "Search",
    "Platform",
    "Mobile",
    "Checkout",
    "Data Science",
    "Onboarding",
    "Notifications",
    "Ads",
    "Trust and Safety",
    "Console Team",
)

# What a gate or config is about: "<area> <feature>", e.g. "Checkout Express Pay".
AREAS: tuple[str, ...] = (
    "checkout",
    "search",
    "onboarding",
    "cart",
    "profile",
    "feed",
    "pricing",
    "billing",
    "inbox",
    "settings",
    "homepage",
    "recommendations",
    "notifications",
    "wishlist",
    "reviews",
    "loyalty",
    "referral",
    "support",
    "shipping",
    "returns",
    "catalog",
    "login",
    "signup",
    "ads",
    "promo",
    "subscription",
    "video",
    "chat",
    "maps",
    "wallet",
)
FEATURES: tuple[str, ...] = (
    "redesign",
    "new flow",
    "banner",
    "dark mode",
    "express pay",
    "autocomplete",
    "ranking model",
    "smart defaults",
    "quick filters",
    "one click",
    "bulk edit",
    "guest mode",
    "tooltip",
    "carousel",
    "infinite scroll",
    "price test",
    "upsell",
    "empty state",
    "kill switch",
    "rate limiter",
    "cache warmup",
    "lazy loading",
    "new api",
    "sso",
    "passkeys",
    "push reminders",
    "weekly digest",
    "sticky header",
    "video preview",
    "compact layout",
    "beta access",
    "holiday theme",
    "ml scoring",
    "fraud check",
    "address lookup",
    "split payments",
    "gift cards",
    "live chat",
    "offline mode",
    "image cdn",
)
VERSIONS: tuple[str, ...] = ("", "", "", " v2", " v3", " 2025", " exp", " rollout")

# Dynamic configs hold settings rather than switches.
CONFIG_SUBJECTS: tuple[str, ...] = (
    "limits",
    "copy",
    "timeouts",
    "colors",
    "thresholds",
    "layout",
    "retry policy",
    "sort order",
    "page size",
    "banner text",
    "pricing table",
    "feature weights",
    "cdn hosts",
    "cache ttl",
    "experiment params",
    "menu items",
    "polling interval",
    "upload limits",
    "currency rules",
    "tax rates",
)

TAGS: tuple[str, ...] = (
    "core",
    "growth",
    "payments",
    "mobile",
    "web",
    "kill-switch",
    "experiment",
    "tech-debt",
    "q4-launch",
    "compliance",
    "performance",
    "infra",
)

ID_TYPES: tuple[tuple[str, int], ...] = (("userID", 70), ("stableID", 18), ("companyID", 8), ("deviceID", 4))

TARGET_APPS: tuple[tuple[str, ...], ...] = ((), (), ("web",), ("ios", "android"), ("web", "ios", "android"), ("admin",))

MONITORING_METRICS: tuple[dict, ...] = (
    {"name": "checkout_conversion", "type": "event_count"},
    {"name": "dau", "type": "user"},
    {"name": "p95_latency_ms", "type": "sum"},
    {"name": "revenue_per_user", "type": "ratio"},
)

SEGMENTS: tuple[str, ...] = ("beta_testers", "internal_employees", "enterprise_accounts", "new_users_7d")

# Condition types of the OpenAPI enum with the operator and target values a console would hold for them.
# `passes_gate`/`fails_gate` are left out: the generator writes them only where it means a gate reference.
CONDITIONS: dict[str, tuple[str, tuple[object, ...], str | None, str | None]] = {
    # condition type: (operator, choices of targetValue, field, customID)
    "app_version": ("version_gte", (["4.2.0"], ["5.0.0"], ["3.9.1"]), None, None),
    "browser_name": ("any", (["Chrome", "Edge"], ["Safari"], ["Firefox"]), None, None),
    "browser_version": ("version_gte", (["118.0"], ["17.2"]), None, None),
    "country": ("any", (["US", "CA"], ["GB", "IE"], ["DE", "AT", "CH"], ["JP"], ["BR", "MX"]), None, None),
    "custom_field": ("any", (["pro", "enterprise"], ["trial"]), "plan", None),
    "email": ("str_contains_any", (["@example.com"], ["@example.org"]), None, None),
    "environment_tier": ("any", (["production"], ["staging", "development"]), None, None),
    "fails_segment": ("any", (["internal_employees"], ["new_users_7d"]), None, None),
    "ip_address": ("any", (["203.0.113.7", "198.51.100.23"],), None, None),
    "locale": ("any", (["en_US", "en_GB"], ["fr_FR"], ["ja_JP"]), None, None),
    "os_name": ("any", (["iOS"], ["Android"], ["iOS", "Android"]), None, None),
    "os_version": ("version_gte", (["17.0"], ["14"]), None, None),
    "passes_segment": ("any", (["beta_testers"], ["enterprise_accounts"]), None, None),
    "time": ("after", ([1767225600000],), None, None),
    "unit_id": ("any", (["acme", "globex", "initech"], ["umbrella"]), None, "companyID"),
    "user_id": ("any", (["user_1042", "user_2718"], ["user_31415"]), None, None),
    "url": ("str_contains_any", (["/checkout"], ["/beta/"]), None, None),
    "javascript": ("any", (["window.matchMedia('(prefers-color-scheme: dark)').matches"],), None, None),
    "device_model": ("any", (["iPhone15,2", "iPhone16,1"], ["Pixel 8"]), None, None),
    "target_app": ("any", (["web"], ["ios"]), None, None),
}

ENVIRONMENTS: tuple[list[str] | None, ...] = (None, None, None, ["production"], ["staging", "development"])

# Shapes of dynamic config values: a default value and the JSON Schema properties that describe it.
CONFIG_VALUES: tuple[tuple[dict, dict], ...] = (
    ({"maxItems": 10, "showBadge": True}, {"maxItems": {"type": "integer"}, "showBadge": {"type": "boolean"}}),
    (
        {"headline": "Free shipping over $50", "color": "#0055ff"},
        {"headline": {"type": "string"}, "color": {"type": "string"}},
    ),
    ({"timeoutMs": 3000, "retries": 2}, {"timeoutMs": {"type": "integer"}, "retries": {"type": "integer"}}),
    (
        {"tiers": ["free", "pro"], "default": "free"},
        {"tiers": {"type": "array", "items": {"type": "string"}}, "default": {"type": "string"}},
    ),
    ({"weights": {"recency": 0.4, "relevance": 0.6}}, {"weights": {"type": "object"}}),
    ({}, {}),
)

INGESTION_SOURCES: tuple[str, ...] = (
    "Purchases",
    "Page Views",
    "Sessions",
    "Subscriptions",
    "Support Tickets",
    "Ad Spend",
    "App Installs",
    "Refunds",
)

# Qualifying events: (name, description, table, timestamp column, id columns)
QUALIFYING_EVENTS: tuple[tuple[str, str, str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Log Events",
        "all app events including add to cart, purchase, page view, checkout",
        "shoppy-sales.logging.events",
        "ts",
        (("userID", "user_id"), ("deviceID", "device_id")),
    ),
    (
        "Purchases",
        "completed orders, one row per order",
        "shoppy-sales.orders.completed",
        "ordered_at",
        (("userID", "user_id"),),
    ),
    (
        "Page Views",
        "web and app page views",
        "shoppy-sales.web.page_views",
        "viewed_at",
        (("userID", "user_id"), ("stableID", "stable_id")),
    ),
    ("Signups", "accounts created", "shoppy-sales.accounts.signups", "created_at", (("userID", "user_id"),)),
    (
        "Subscriptions Started",
        "paid plans started",
        "shoppy-billing.subscriptions.started",
        "started_at",
        (("userID", "user_id"), ("companyID", "company_id")),
    ),
    (
        "Support Contacts",
        "tickets and chats opened",
        "shoppy-support.tickets.opened",
        "opened_at",
        (("userID", "requester_id"),),
    ),
)
QUALIFYING_REGIONS: tuple[str, ...] = ("", " EU", " US", " APAC", " LATAM", " Mobile", " Web")

GATE_PURPOSES: tuple[str, ...] = (
    "Rolls out {feature} on {area}.",
    "Kill switch for {feature} in {area}.",
    "Targets {area} users for the {feature} experiment.",
    "Guards the {feature} migration of {area}.",
    "Beta access to {feature} ({area}).",
    "",
)

HOLDOUT_SEASONS: tuple[str, ...] = ("Q1 2026", "Q2 2026", "Q3 2026", "Q4 2026", "H2 2026", "Always on")

EXPERIMENT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("Control", "Test"),
    ("Control", "Test"),
    ("Control", "Variant A", "Variant B"),
    ("Daily Deals", "Items You May Like", "Buy Again"),
    ("Control", "Short Copy", "Long Copy", "No Copy"),
)

# Words kept in capitals when a name is built from them.
ACRONYMS = frozenset({"sso", "api", "cdn", "ml", "v2", "v3", "ttl"})
