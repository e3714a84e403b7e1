/**
 * The signing page's one stylesheet, served same-origin at /assets/signing-page.css (the
 * page's CSP allows no inline style). Colours meet WCAG AA contrast: body text #1f2328 on
 * white is 15.8:1, links #0a58ca 6.5:1, the buttons' white on #0a58ca and #a4161a over 6:1.
 */
export const SIGNING_PAGE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{font-size:100%;-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;line-height:1.55;color:#1f2328;background:#f3f4f6}
main{max-width:46rem;margin:0 auto;padding:1rem}
header,section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem;margin:0 0 1rem}
h1{font-size:1.5rem;margin:.25rem 0}
h2{font-size:1.2rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:0 0 .5rem;color:#57606a}
.from,.muted{color:#57606a;margin:0}
a{color:#0a58ca}
a:focus,button:focus,input:focus,textarea:focus{outline:3px solid #0a58ca;outline-offset:2px}
.pages{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:.5rem}
.page{border-top:1px solid #d0d7de;padding:1rem 0}
.page p{margin:0 0 .75rem;white-space:pre-wrap;overflow-wrap:anywhere}
blockquote{margin:0 0 1rem;padding:.5rem 1rem;border-left:4px solid #d0d7de;white-space:pre-wrap}
.field{margin:0 0 1rem}
.check{display:flex;gap:.6rem;align-items:flex-start}
.check input{width:1.4rem;height:1.4rem;margin:.15rem 0 0;flex:none}
label{font-weight:600}
input[type=text],textarea{display:block;width:100%;font:inherit;padding:.6rem;border:1px solid #6e7781;border-radius:6px;margin-top:.3rem}
textarea{min-height:6rem}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.4rem;border:0;border-radius:6px;color:#fff;background:#0a58ca;cursor:pointer}
button.decline{background:#a4161a}
.error{color:#a4161a;font-weight:600}
.consent{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem}
details summary{cursor:pointer;color:#0a58ca;font-weight:600}
`;
