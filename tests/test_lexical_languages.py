"""Full-text search in the vault's own language: German, Spanish and French words stemmed alike in passages and
questions, Chinese read as character pairs, the specific-word rules of each language; English as before."""

from __future__ import annotations

import pytest
from conftest import both_stores, index_rows, write

from smartvec_cli.memory.analysis import analyse, cjk_pairs, main_language
from smartvec_cli.memory.lexical import query_terms, specific_terms
from smartvec_cli.store.fts5 import fts5_any, fts5_phrase
from smartvec_cli.store.lexical import LexicalQuery
from smartvec_cli.store.sqlite import SqliteStore

GERMAN = {
    "Kopieren.md": "# Dateien kopieren\n\nMit cp wird eine Datei in ein anderes Verzeichnis kopiert. Ganze Ordner "
    "kopiert man rekursiv, dann werden alle Unterordner mitgenommen und die Zeitstempel bleiben erhalten.\n",
    "Archive.md": "# Archive\n\nEin Archiv fasst viele Dateien zu einer zusammen. Beim Entpacken werden die Rechte der "
    "ursprünglichen Besitzer wiederhergestellt, sofern man dazu berechtigt ist.\n",
    "Netzwerk.md": "# Netzwerk\n\nDie Verbindung zu einem entfernten Rechner wird mit ssh aufgebaut. Schlüssel liegen "
    "im Benutzerverzeichnis und werden beim Anmelden geprüft, Passwörter braucht man dann keine mehr.\n",
}
CHINESE = {
    "复制.md": "# 复制\n\n使用 cp 命令可以把一个文件复制到另一个目录。复制整个文件夹时需要递归地处理所有子文件夹，"
    "并且保留原来的时间戳和权限设置，这样备份才和原件完全一致。如果目标目录已经存在同名的文件，"
    "它会被直接覆盖，所以最好先检查一下目标目录里面已经有哪些内容。\n",
    "压缩.md": "# 压缩\n\n归档工具把许多文件合并成一个包，解压时会恢复原来的所有者和权限。"
    "压缩可以节省磁盘空间，也方便通过网络传输大量的小文件。常见的格式有很多种，"
    "它们在速度和压缩率之间各有取舍，选择哪一种要看具体的用途和对方能否打开。\n",
    "网络.md": "# 网络\n\n通过 ssh 连接到远程主机。密钥保存在用户的主目录中，登录时会自动检查，"
    "配置好以后就不再需要输入密码，也可以用它在两台机器之间安全地传输数据。连接断开时，"
    "正在运行的程序通常也会停止，所以长时间的任务最好放在后台或者会话管理器里运行。\n",
}


def test_words_are_stemmed_in_the_vault_language_and_cjk_read_as_pairs():
    assert analyse("Dateien kopieren", "de") == analyse("Datei kopiere", "de") == "datei kopi"
    assert analyse("archivos copiados", "es") == analyse("archivo copiado", "es")
    assert analyse("fichiers copiés", "fr") == analyse("fichier copié", "fr")
    assert analyse("复制文件", "zh") == "复制 制文 文件" and cjk_pairs("锁") == ["锁"]
    assert analyse("用cp复制", "zh") == "用 cp 复制"
    # SQLite's store writes the words it is asked for in the analysed index's terms
    assert fts5_any(LexicalQuery(("dateien", "复制文件")), "de") == '"datei" OR "复制 制文 文件"'
    assert fts5_phrase(("dateien", "kopieren"), "de") == 'text : "datei kopi"'
    assert main_language("de en") == "de" and main_language(None) == main_language("") == "en"


def test_english_questions_are_read_as_before():
    question = "How do I restart the ingest worker on Berlin hosts after ERR-4012?"
    assert (
        query_terms(question)
        == query_terms(question, "en")
        == ["restart", "ingest", "worker", "berlin", "hosts", "err", "4012"]
    )
    assert specific_terms(question) == {"berlin", "err", "4012"}
    # an English vault's index holds CJK runs whole
    assert fts5_any(LexicalQuery.any_of(query_terms("复制文件")), "en") == '"复制文件"'


def test_each_language_leaves_out_its_own_stopwords_and_question_words():
    assert query_terms("Wie kopiere ich einen Ordner mit allen Dateien?", "de") == [
        "kopiere",
        "ordner",
        "allen",
        "dateien",
    ]
    assert query_terms("¿Cómo copio una carpeta con todos sus archivos?", "es") == ["copio", "carpeta", "archivos"]
    assert query_terms("Comment copier un dossier avec tous ses fichiers ?", "fr") == ["copier", "dossier", "fichiers"]
    terms = query_terms("如何把文件复制到另一个目录", "zh")
    assert {"文件", "复制", "目录"} <= set(terms) and not {"如何", "一个"} & set(terms)


def test_a_german_noun_is_no_name_but_identifiers_stay_specific():
    question = "Wie entpacke ich ein Archiv mit tar auf dem Server prod-3?"
    assert specific_terms(question, "de") == {"prod", "3"}
    assert "server" in specific_terms(question, "en")  # in English a capital inside a question names something
    assert specific_terms("Wo liegt die Konfiguration von Kubernetes und NATS?", "de") == {"nats"}
    assert specific_terms("如何用 HTTP 下载 base64 文件", "zh") == {"http", "base64"}


def lexical_check(cli, expect: int = 0) -> str:
    report = cli.json("doctor", "--json", expect=expect)
    return next(check["detail"] for check in report["checks"] if check["name"] == "lexical")


def lexical(cli, question: str) -> list[str]:
    return [hit["path"] for hit in cli.json("query", question, "--mode", "lexical", "--json")]


@both_stores
def test_a_german_vault_finds_inflected_words(vault, cli, fake_embedder):
    for name, text in GERMAN.items():
        write(vault, name, text)
    cli.json("index", "--json")
    assert cli.json("status", "--json")["embedder"]["languages"] == ["de"]
    assert lexical(cli, "Zeitstempeln Verzeichnissen")[0] == "Kopieren.md"  # the note says "Zeitstempel", "Verzeichnis"
    assert lexical(cli, "Schlüssel beim Anmelden")[0] == "Netzwerk.md"
    assert lexical(cli, "Besitzers Rechte")[0] == "Archive.md"  # "Besitzer"


@both_stores
def test_a_chinese_vault_finds_words_inside_sentences(vault, cli, fake_embedder):
    for name, text in CHINESE.items():
        write(vault, name, text)
    cli.json("index", "--json")
    assert cli.json("status", "--json")["embedder"]["languages"] == ["zh"]
    assert lexical(cli, "复制文件夹")[0] == "复制.md"
    assert lexical(cli, "密钥登录")[0] == "网络.md"
    assert lexical(cli, "解压以后的所有者")[0] == "压缩.md"


def test_an_english_vault_keeps_the_porter_index_alone(sample_vault, cli, fake_embedder):
    cli.json("index", "--json")
    assert index_rows("SELECT count(*) FROM passages_words") == [(0,)]
    assert index_rows("SELECT count(*) FROM passages_fts")[0][0] > 0


def test_a_vault_whose_language_changes_is_analysed_anew_and_doctor_checks_it(vault, cli, fake_embedder, tmp_path):
    for name, text in GERMAN.items():
        write(vault, name, text)
    cli.json("index", "--json")
    german = index_rows("SELECT text FROM passages_words ORDER BY rowid")
    assert german and all("dateien" not in text for (text,) in german) and any("datei" in text for (text,) in german)
    for name in GERMAN:
        (vault / name).unlink()
    for name, text in CHINESE.items():
        write(vault, name, text)
    cli.json("index", "--full", "--json")
    assert cli.json("status", "--json")["embedder"]["languages"] == ["zh"]
    assert lexical(cli, "复制文件夹")[0] == "复制.md"
    assert index_rows("SELECT count(*) FROM passages_words WHERE text LIKE '%文件%'")[0][0] > 0

    with SqliteStore.open(tmp_path / "index") as store:
        store.db.execute("UPDATE passages_words SET text = 'stale words' WHERE rowid = (SELECT max(id) FROM chunks)")
        store.db.conn.commit()
    assert "1 entries with old text" in lexical_check(cli, expect=1)
    assert cli("doctor", "--repair", "--json").exit_code == 0
    assert lexical_check(cli) == "the full-text index matches every stored passage"
    assert lexical(cli, "复制文件夹")[0] == "复制.md"


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_phrases_keep_their_order_once_stemmed(language):
    words = analyse("Les fichiers copiés restent ici", language).split()
    assert len(words) == 5 and words[-1] == "ici"


def test_an_index_made_before_the_analysed_index_gets_it_filled_on_opening(vault, cli, fake_embedder, tmp_path):
    import sqlite3

    for name, text in GERMAN.items():
        write(vault, name, text)
    cli.json("index", "--json")
    db = sqlite3.connect(tmp_path / "index" / "smartvec.db")  # as an index made before migration m011 left it
    for trigger in ("chunks_words_insert", "chunks_words_update", "chunks_words_delete", "notes_words_title"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE passages_words")
    db.execute("DELETE FROM _migrations WHERE name = 'm011_words_in_every_language'")
    db.commit()
    db.close()
    assert lexical(cli, "Zeitstempeln Verzeichnissen")[0] == "Kopieren.md"
    passages = index_rows("SELECT count(*) FROM chunks")[0][0]
    assert index_rows("SELECT count(*) FROM passages_words") == [(passages,)]
    assert lexical_check(cli) == "the full-text index matches every stored passage"


def test_the_configured_language_is_the_one_the_full_text_index_reads(vault, cli, fake_embedder, tmp_path):
    """``languages`` in config.toml outranks what the notes look like, and a changed setting takes effect at the
    next run: English-looking notes stemmed as German, then back to the porter index alone."""
    for name, text in GERMAN.items():
        write(vault, name, text)
    (tmp_path / "index").mkdir()
    config = tmp_path / "index" / "config.toml"
    config.write_text('languages = ["en"]\n', encoding="utf-8")
    cli.json("index", "--json")
    assert index_rows("SELECT count(*) FROM passages_words") == [(0,)]
    assert lexical(cli, "Zeitstempel Verzeichnis")[0] == "Kopieren.md"

    config.write_text('languages = ["de"]\n', encoding="utf-8")
    cli.json("index", "--json")
    assert index_rows("SELECT count(*) FROM passages_words")[0][0] > 0
    assert lexical(cli, "Zeitstempeln Verzeichnissen")[0] == "Kopieren.md"
