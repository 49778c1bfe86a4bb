use super::*;

fn fresh(utterances: &[&str]) -> ConversationLanguage {
    let mut t = ConversationLanguage::new();
    for u in utterances {
        t.observe(u);
    }
    t
}

fn state(t: ConversationLanguage) -> (Option<Lang>, bool) {
    (t.current, t.explicit)
}

#[test]
fn t4_vectors() {
    use Lang::{En, ZhCn};
    let cases: &[(&[&str], Option<Lang>, bool)] = &[
        (&["请用中文回答"], Some(ZhCn), true),
        (&["Please reply to me in Mandarin."], Some(ZhCn), true),
        (&["switch back to English"], Some(En), true),
        (
            &["Please respond in English", "你好，帮我看看这个"],
            Some(En),
            true,
        ),
        (
            &["Translate 'Please switch to English' into Chinese"],
            Some(En),
            false,
        ),
        (&["请把这段文档翻译成英文。"], Some(ZhCn), false),
        (&["ok"], None, false),
        (&["Thanks!"], None, false),
        (&["好"], None, false),
        (&["git status"], None, false),
        (&["看看 `src/main.rs`"], Some(ZhCn), false),
        (&["fix it"], None, false),
        (&["fix the bug"], Some(En), false),
        (&["Привет как дела сегодня"], None, false),
    ];
    for (utterances, current, explicit) in cases {
        assert_eq!(
            state(fresh(utterances)),
            (*current, *explicit),
            "{utterances:?}"
        );
    }
}

#[test]
fn acknowledgements_and_commands_leave_the_language_unchanged() {
    let mut t = fresh(&["please look at the failing build"]);
    assert_eq!(t.current, Some(Lang::En));
    for u in [
        "好的",
        "谢谢！",
        "OK.",
        "thank you",
        "go ahead!!",
        "python3 -m pytest 看看这个问题",
        "sudo 重启服务器吧",
    ] {
        assert_eq!(t.observe(u), Observed::Unchanged, "{u}");
        assert_eq!(t.current, Some(Lang::En), "{u}");
    }
}

#[test]
fn chinese_requests_cover_the_grammar() {
    for (u, lang) in [
        ("以后用英文回答", Lang::En),
        ("麻烦接下来请一直用英语和我交流就好。", Lang::En),
        ("今后都使用简体中文来回复好吗？", Lang::ZhCn),
        ("切换成汉语聊天可以吗!?", Lang::ZhCn),
        ("改为英文", Lang::En),
        ("请切换到中文", Lang::ZhCn),
    ] {
        assert_eq!(explicit_request(u), Some(lang), "{u}");
    }
    // Anchored: anything around the request makes it not a request.
    for u in [
        "他说以后用英文回答",
        "以后用英文回答吧",
        "请用中文回答这个问题",
        "用法语回答",
    ] {
        assert_eq!(explicit_request(u), None, "{u}");
    }
}

#[test]
fn english_requests_cover_the_grammar() {
    for (u, lang) in [
        ("please reply in Chinese", Lang::ZhCn),
        ("RESPOND USING ENGLISH!", Lang::En),
        (
            "talk to me in simplified   chinese from now on.",
            Lang::ZhCn,
        ),
        ("answer in english for your replies", Lang::En),
        ("change to Mandarin for responses", Lang::ZhCn),
        ("use English", Lang::En),
        ("Please\u{3000}speak in English?!", Lang::En),
        ("use engli\u{17F}h", Lang::En),
        ("USE CHINE\u{17F}E", Lang::ZhCn),
    ] {
        assert_eq!(explicit_request(u), Some(lang), "{u}");
    }
    for u in [
        "can you reply in Chinese",
        "please reply in Chinese to Bob",
        "\"please reply in Chinese\" is what she wrote",
        "reply in French",
        "use English words",
        "please, reply in Chinese",
    ] {
        assert_eq!(explicit_request(u), None, "{u}");
    }
}

#[test]
fn a_preference_is_sticky_until_another_request() {
    let mut t = fresh(&["请用中文回答"]);
    assert_eq!(
        t.observe("Here is a long English paragraph about the build system."),
        Observed::Unchanged
    );
    assert_eq!(t.current, Some(Lang::ZhCn));
    assert_eq!(
        t.observe("please reply in English"),
        Observed::Requested(Lang::En)
    );
    assert_eq!(state(t), (Some(Lang::En), true));
}

#[test]
fn resolve_falls_back_only_without_a_language() {
    assert_eq!(ConversationLanguage::new().resolve(Lang::ZhCn), Lang::ZhCn);
    assert_eq!(fresh(&["fix the bug"]).resolve(Lang::ZhCn), Lang::En);
}

#[test]
fn blank_utterances_are_ignored() {
    let mut t = ConversationLanguage::new();
    assert_eq!(t.observe(" \u{FEFF}\u{3000} "), Observed::Ignored);
    assert!(!is_sample("\u{FEFF}"));
    assert!(is_sample("\u{0085}"));
}

#[test]
fn real_paragraphs() {
    let zh = "我们昨天在生产环境里发现了一个奇怪的问题：用户上传的图片在某些情况下会被裁剪成空白。\
              我怀疑是缩略图服务的缓存出了问题，你能帮我梳理一下排查思路吗？顺便看看日志里有没有超时的记录。";
    assert_eq!(fresh(&[zh]).current, Some(Lang::ZhCn));
    let en = "We found a strange issue in production yesterday: uploaded images are sometimes cropped \
              to a blank square. I suspect the thumbnail service's cache. Could you walk me through how \
              you would debug this, and check the logs for timeouts while you're at it?";
    assert_eq!(fresh(&[en]).current, Some(Lang::En));
    // Mixed: English words only inside code, URLs and paths do not count.
    let mixed = "帮我看看 https://example.com/docs/getting-started 这个页面，\n```\nfn main() { println!(\"hello world from rust\"); }\n```\n还有 /usr/local/share/keel/config 文件";
    assert_eq!(fresh(&[mixed]).current, Some(Lang::ZhCn));
    let code_only = "```\nlet the quick brown fox = jumps();\n``` `and more words here` www.example.com/a/b/c ~/some/long/path C:\\Users\\me";
    assert_eq!(prose(code_only), "");
    assert_eq!(fresh(&[code_only]).current, None);
    // Japanese and Korean are neither zh-CN by one Han char nor en.
    assert_eq!(fresh(&["これはテストです test this now"]).current, None);
    assert_eq!(fresh(&["안녕하세요 please help me"]).current, None);
}

#[test]
fn prose_reduction_rules() {
    assert_eq!(prose("see `a b` and ```x\ny``` ok"), "see   and   ok");
    assert_eq!(prose("open HTTPS://Example.com/x?y=1 now"), "open   now");
    // The whitespace before a path is consumed with it; the one after stays.
    assert_eq!(
        prose("path /etc/hosts and ~/x and D:\\dir\\f end"),
        "path  and  and  end"
    );
    // A slash inside a word is not a path token.
    assert_eq!(prose("either/or"), "either/or");
    // www. needs a word boundary before it.
    assert_eq!(prose("awww.example"), "awww.example");
}

#[test]
fn latin_words_need_ascii_boundaries() {
    // "abc123" is no word; "don't" is one.
    assert_eq!(fresh(&["abc123 def456 ghi789"]).current, None);
    assert_eq!(fresh(&["don't stop now"]).current, Some(Lang::En));
    assert_eq!(fresh(&["don't stop"]).current, None);
}

/// N42: Japanese (kanji in nearly every sentence) and Korean quoting hanja are not Chinese.
#[test]
fn japanese_and_korean_prose_never_sets_chinese() {
    let japanese = [
        "昨日、本番環境で画像のアップロードに失敗する問題が発生しました。原因を調べてもらえますか。",
        "このファイルの設定を確認して、必要なら修正してください。",
        "会議の資料は共有フォルダにあります。明日までに目を通しておいてください。",
        "東京駅から新幹線で大阪まで行く予定です。",
    ];
    let korean = [
        "어제 서버에서 이미지 업로드 오류가 발생했습니다. 원인을 확인해 주세요.",
        "이 문서의 韓國語 표기와 漢字 표기를 비교해 주세요.",
        "大韓民國 헌법 제1조를 요약해 주세요.",
    ];
    for text in japanese.iter().chain(&korean) {
        assert_eq!(detect(text), None, "{text}");
        assert_eq!(fresh(&[text]).current, None, "{text}");
        // An established language stays what it was.
        assert_eq!(
            fresh(&["Please look at this bug for me today", text]).current,
            Some(Lang::En)
        );
    }
    // Chinese stays Chinese.
    assert_eq!(detect("请帮我检查一下这个配置文件"), Some(Lang::ZhCn));
}
