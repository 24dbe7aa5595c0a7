"""Test strings for scripts/text-oracle, by category. Kept NFC; no trailing spaces."""

LATIN = [
    "The quick brown fox jumps over the lazy dog",
    "Pack my box with five dozen liquor jugs",
    "Sphinx of black quartz, judge my vow",
    "AVATAR", "WAVE", "Type", "To", "Ty", "Yo", "LT", "P.", "F,", "AV", "VA", "Wo", "We", "Tr", "Te",
    "Yachting", "Tomorrow", "Vowel", "LAWYER", "ATTAWAY", "Kerning matters: AVAWAY, Toyota, Tyrol",
    "Sign in", "Sign up", "Add to cart", "Welcome back, Anna!", "Continue", "Cancel", "Settings",
    "Your order has shipped", "Free delivery on orders over 50", "Recommended for you",
    "Terms of Service", "Privacy Policy", "Forgot your password?", "Try again later.",
    "Hello, World", "Lorem ipsum dolor sit amet, consectetur adipiscing elit",
    "Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua",
    "well-known state-of-the-art", "e-mail", "x", "I", "W", "m", "il", "WWWWW", "iiiii", "mmmmm",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz",
    "Quick Brown Fox", "JUMPS OVER", "Vertical rhythm", "Typography", "Yesterday", "Tuesday",
    "Wednesday", "Keyboard", "Flower", "office", "fjord", "affluent", "Official", "fluffy",
    "Android", "iPhone", "Trellis", "Layout", "Frame", "Button", "Toggle", "Vanilla", "Avocado",
    "Two  spaces", "Tab-free text", "News & Updates", "Today at 9:41", "Yes/No", "T-shirt",
    "You have 3 new messages", "Tap to retry", "View all", "Show more", "Load more results",
]

ACCENTED = [
    "Café crème brûlée", "naïve façade", "Ærøskøbing", "Straße Größe Übermaß", "Zürich Köln München",
    "Łódź Kraków Gdańsk Wrocław", "Příliš žluťoučký kůň úpěl ďábelské ódy", "Ñandú, año, señor",
    "São Paulo, ação, coração", "Dvořák Janáček", "İstanbul ğ ş ı", "Tiếng Việt có dấu",
    "Đà Nẵng Hồ Chí Minh", "Ångström", "résumé", "Øresund", "Évian-les-Bains", "Ça va?",
    "Àéîõü ÀÉÎÕÜ", "ŒUVRE œuvre", "Reykjavík Þingvellir", "Şırnak", "Čeština Slovenčina",
    "Ελληνικά", "Ύδρα", "Schrödinger", "Mañana", "Crème fraîche", "Fußgängerübergänge",
    "Déjà vu", "Pokémon", "Ōsaka Tōkyō", "Māori", "Škoda", "Jõgeva",
]

CYRILLIC = [
    "Съешь же ещё этих мягких французских булок, да выпей чаю",
    "Москва", "Санкт-Петербург", "Привет, мир", "Войти", "Регистрация", "Корзина", "Настройки",
    "Ваш заказ отправлен", "Українська мова", "Їжак ґанок", "Беларусь", "Србија", "Љубав њега",
    "Щука ЖЁЛТЫЙ", "ТАРАКАН", "Гарантия", "Уведомления", "Доставка бесплатно",
]

GREEK = [
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία", "Αθήνα", "Θεσσαλονίκη", "Καλημέρα κόσμε", "Σύνδεση",
    "Ρυθμίσεις", "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", "αβγδεζηθικλμνξοπρστυφχψω", "Ψυχή", "Ώρα",
]

CJK = [
    "東京", "你好，世界", "日本語のテキスト", "ひらがなとカタカナ", "한국어 텍스트", "안녕하세요",
    "中文排版测试", "繁體中文", "設定", "ログイン", "カートに追加", "注文が発送されました",
    "北京欢迎你", "漢字仮名交じり文", "서울특별시", "今日は良い天気です。", "「引用」と（括弧）",
    "東京タワー", "大阪", "上海市", "台北", "香港",
]

DIGITS = [
    "0123456789", "1,234.56", "$1,299.00", "€ 49,90", "£12", "¥1000", "100%", "3.14159",
    "(555) 010-2030", "+1 202 555 0147", "2024-03-15", "12:30 PM", "1/2", "#hashtag", "@user",
    "“Quoted”", "‘single’", "«guillemets»", "Wait…", "em — dash", "en – dash", "a·b", "x × y",
    "±5°", "≈ 42", "→ Next", "← Back", "[brackets] {braces}", "foo_bar", "a+b=c", "<tag>",
    "50% off!", "No. 7", "§ 12", "© 2024", "™ ®", "!?", "...", "***", "A/B", "v2.1.0", "1st 2nd 3rd",
    "10 000", "0.5", "-5", "−5", "×÷", "¼ ½ ¾",
]

MIXED = [
    "Café 東京 Москва", "Hello 世界", "Order #1234 отправлен", "iPhone 15 Pro — €1.199",
    "Αθήνα → Paris", "München 2024", "Tokyo 東京 トウキョウ", "Seoul 서울", "Price: ¥1,000 (税込)",
    "Kyiv Київ", "Sign in / Войти / ログイン", "A 東 V", "T東o",
]

EMOJI = [
    "Hi 👋", "🎉 Party", "❤️ Love", "👍", "🔥🔥🔥", "Done ✅", "Star ⭐", "👨‍👩‍👧 Family",
    "👍🏽 ok", "🇫🇷 France", "😀😃😄", "Thanks 🙏", "☀️ Sunny", "🚀 Launch", "Good 👌 job",
    "👩‍💻 Developer", "🏳️‍🌈", "🇯🇵🇩🇪🇺🇸", "👋🏻👋🏿", "Rated ★★★★☆", "🧑‍🤝‍🧑", "❤️‍🔥 hot",
    "😀😀😀😀😀", "Go →", "x 🤖 y",
]

CATEGORIES = {
    "latin": LATIN, "accented": ACCENTED, "cyrillic": CYRILLIC, "greek": GREEK, "cjk": CJK,
    "digits": DIGITS, "mixed": MIXED, "emoji": EMOJI,
}
