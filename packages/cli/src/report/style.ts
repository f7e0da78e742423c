/**
 * The page design of hpt-bench's HTML pages: the static report (`report/html.ts`) and the live viewer (`hpt-bench
 * view`) use this one stylesheet, so both look alike. Plain CSS, no external fonts or images (the report's
 * Content-Security-Policy allows inline styles only).
 */
export const REPORT_STYLE = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#ffffff;--soft:#f4f6fa;--good:#1a7f37;--bad:#b42318}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:20px 28px;background:linear-gradient(90deg,#1f3b73,#2f6db5);color:#fff}
header h1{margin:0 0 6px;font-size:22px}
header p{margin:0;opacity:.9}
nav{padding:8px 28px;background:var(--soft);border-bottom:1px solid var(--line)}
nav a{margin-right:16px;color:#2f6db5;text-decoration:none}
main{padding:8px 28px 40px}
h2{margin:28px 0 10px;font-size:18px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{margin:18px 0 6px;font-size:15px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:var(--muted);font-size:11px}
.note,.source,figcaption{color:var(--muted);font-size:12px;margin:4px 0}
.charts{display:flex;flex-wrap:wrap;gap:18px}
figure.chart{margin:0;padding:10px;border:1px solid var(--line);border-radius:6px;max-width:100%;overflow-x:auto}
section.run-trace{content-visibility:auto;contain-intrinsic-size:auto 1200px}
#trace-tools{position:sticky;top:0;background:var(--bg);padding:8px 0;z-index:1;border-bottom:1px solid var(--line)}
#trace-filter{width:360px;max-width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:4px;font-size:14px}
details.sample{border:1px solid var(--line);border-radius:4px;margin:4px 0;background:#fff}
details.sample>summary{cursor:pointer;padding:4px 8px;background:var(--soft)}
details.sample[open]>summary{border-bottom:1px solid var(--line)}
details.sample>*:not(summary){margin-left:10px;margin-right:10px}
.sid{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.q{color:var(--muted)}
#table-runs td:not(.num),#table-usage td:not(.num){overflow-wrap:break-word;min-width:6ch}
td.runid{white-space:nowrap;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;cursor:help}
.rid{color:var(--muted);font-weight:normal;font-size:12px}
.good{color:var(--good);font-weight:600}.bad{color:var(--bad);font-weight:600}
.tag{display:inline-block;margin-left:6px;padding:0 6px;border-radius:8px;background:#e6ecf7;font-size:11px}
.attempt{border-left:4px solid var(--line);padding:2px 8px;margin:8px 0}
.attempt.ok{border-left-color:var(--good)}.attempt.fail{border-left-color:var(--bad)}
.attempt h5{margin:4px 0;font-size:13px}
.call{margin:6px 0 10px;padding:4px 8px;background:#fafbfd;border:1px dashed var(--line)}
.callhead{color:var(--muted);font-size:12px}
.rule{color:var(--muted);font-size:12px;margin:2px 0 4px}.rule code{white-space:pre-wrap}mark{background:#fde68a;color:inherit}
.role{display:inline-block;min-width:70px;color:var(--muted);font-size:11px;text-transform:uppercase}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f7f7f9;padding:4px 6px;border-radius:3px}
dl.kv{display:grid;grid-template-columns:90px 1fr;gap:2px 8px}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
.hidden{display:none}
`;
