import { datasetRecord, type CorpusDocument } from './corpus-types';

/** Financial, economic, legal, security, prediction-market and newswire records of the built-in corpus. */
export const RECORD_DOCUMENTS: readonly CorpusDocument[] = [
  datasetRecord('svc/svc-sec-filings', '0001835512-25-000012', {
    title: 'Acme Robotics, Inc. Form 10-K for fiscal year 2024',
    url: 'https://www.sec.gov/Archives/edgar/data/1835512/000183551225000012/acme-10k2024.htm',
    source_type: 'filing',
    publication_date: '2025-02-28',
    keywords: ['annual report', 'risk factors', 'revenue', 'filings', 'company'],
    content:
      'Acme Robotics reported revenue of 612 million dollars for fiscal 2024, up 31 percent, and a net loss of 48 million dollars. Risk factors include dependence on a small number of large logistics customers, component supply for lidar and compute modules, and competition from Globex Corporation and other automation vendors.',
  }),
  datasetRecord('svc/svc-sec-filings', '0000950170-24-118233', {
    title: 'Globex Corporation Form 10-Q for the quarter ended September 30, 2024',
    url: 'https://www.sec.gov/Archives/edgar/data/1045123/000095017024118233/globex-10q.htm',
    source_type: 'filing',
    publication_date: '2024-10-31',
    keywords: ['quarterly report', 'filings', 'company'],
    content:
      'Globex Corporation quarterly revenue was 2.1 billion dollars. Logistics robotics segment revenue grew 14 percent on warehouse automation orders. The company repurchased 300 million dollars of common stock and reaffirmed full-year guidance.',
  }),
  datasetRecord('svc/svc-earnings-US', 'GLBX-2024Q4', {
    title: 'Globex Corporation (GLBX) Q4 2024 earnings',
    url: 'https://data.example-markets.com/earnings/GLBX/2024Q4',
    source_type: 'dataset',
    publication_date: '2025-02-20',
    keywords: ['earnings', 'eps', 'finance', 'stocks'],
    content:
      'Globex Corporation Q4 2024: reported EPS 1.42 versus consensus 1.35; revenue 2.3 billion dollars versus 2.25 billion expected. Surprise +5.2 percent. Next report expected 2025-04-24.',
  }),
  datasetRecord('svc/svc-stocks', 'ACMR-2025-03', {
    title: 'Acme Robotics (ACMR) daily prices, March 2025',
    url: 'https://data.example-markets.com/stocks/ACMR/2025-03',
    source_type: 'dataset',
    publication_date: '2025-03-31',
    keywords: ['share price', 'stock', 'market', 'finance'],
    content:
      'ACMR closed March 2025 at 38.12 dollars, up 9.4 percent for the month, after the Acme Picker 4 launch. 30-day average volume 2.8 million shares. 52-week range 21.40 to 41.75 dollars.',
    records: [
      { symbol: 'ACMR', date: '2025-03-27', open: 36.9, high: 37.8, low: 36.5, close: 37.41, volume: 2_640_000 },
      { symbol: 'ACMR', date: '2025-03-28', open: 37.4, high: 38.0, low: 37.1, close: 37.66, volume: 2_310_000 },
      { symbol: 'ACMR', date: '2025-03-31', open: 37.7, high: 38.4, low: 37.5, close: 38.12, volume: 2_950_000 },
    ],
  }),
  datasetRecord('svc/svc-fred', 'CPIAUCSL', {
    title: 'Consumer Price Index for All Urban Consumers (CPIAUCSL)',
    url: 'https://fred.stlouisfed.org/series/CPIAUCSL',
    source_type: 'dataset',
    publication_date: '2025-03-12',
    keywords: ['inflation', 'cpi', 'economics', 'prices'],
    content:
      'CPI for all urban consumers, all items, seasonally adjusted, index 1982-1984=100. February 2025: 319.08. Year-over-year change: 2.8 percent. Monthly frequency; source: U.S. Bureau of Labor Statistics.',
  }),
  datasetRecord('svc/svc-bls', 'LNS14000000', {
    title: 'Unemployment rate, seasonally adjusted (LNS14000000)',
    url: 'https://data.bls.gov/timeseries/LNS14000000',
    source_type: 'dataset',
    publication_date: '2025-03-07',
    keywords: ['unemployment', 'labor market', 'jobs', 'economics'],
    content: 'U.S. unemployment rate, February 2025: 4.1 percent. Nonfarm payroll employment rose by 151,000. Labor force participation rate 62.4 percent.',
  }),
  datasetRecord('svc/svc-worldbank-indicators', 'NY.GDP.MKTP.KD.ZG-WLD', {
    title: 'GDP growth (annual %) - World',
    url: 'https://data.worldbank.org/indicator/NY.GDP.MKTP.KD.ZG?locations=1W',
    source_type: 'dataset',
    publication_date: '2024-07-01',
    keywords: ['gdp', 'economic growth', 'economics', 'environment'],
    content:
      'World GDP growth at constant prices: 2021 6.3 percent, 2022 3.1 percent, 2023 2.7 percent. Source: World Bank national accounts data and OECD national accounts data files.',
  }),
  datasetRecord('svc/svc-patents', 'US11984567B2', {
    title: 'Autonomous mobile robot with adaptive grasp planning for mixed-item picking',
    url: 'https://patents.example.gov/patent/US11984567B2',
    source_type: 'patent',
    publication_date: '2024-05-14',
    authors: ['Dana Ortiz', 'Wei Zhang'],
    keywords: ['patent', 'robotics', 'warehouse', 'acme robotics'],
    content:
      'Assignee: Acme Robotics, Inc. A mobile robot comprising a vision module and a grasp planner that selects among suction and finger grippers based on estimated item geometry and surface properties, reducing failed picks in mixed-item warehouse totes.',
  }),
  datasetRecord('svc/svc-nvd-cve', 'CVE-2024-3094', {
    title: 'CVE-2024-3094: malicious code in xz upstream tarballs',
    url: 'https://nvd.nist.gov/vuln/detail/CVE-2024-3094',
    source_type: 'dataset',
    publication_date: '2024-03-29',
    keywords: ['vulnerability', 'cybersecurity', 'supply chain', 'backdoor', 'linux'],
    content:
      'Malicious code was discovered in the upstream tarballs of xz, starting with version 5.6.0. The build process extracts a prebuilt object file that modifies functions in liblzma, which can be used to intercept and modify data interactions with the library, affecting sshd on some distributions. CVSS 3.1 base score 10.0 critical.',
  }),
  datasetRecord('svc/svc-cisa-kev', 'CVE-2023-4966', {
    title: 'Citrix NetScaler ADC and Gateway buffer overflow (Citrix Bleed)',
    url: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?search=CVE-2023-4966',
    source_type: 'dataset',
    publication_date: '2023-10-18',
    keywords: ['known exploited vulnerabilities', 'cybersecurity', 'ransomware', 'compliance'],
    content:
      'Citrix NetScaler ADC and NetScaler Gateway contain a buffer overflow vulnerability that allows for sensitive information disclosure when configured as a Gateway or AAA virtual server. Known ransomware campaign use: known. Required action: apply mitigations per vendor instructions. Due date: 2023-11-08.',
  }),
  datasetRecord('svc/svc-uk-legislation', 'ukpga-2023-50', {
    title: 'Online Safety Act 2023 (c. 50)',
    url: 'https://www.legislation.gov.uk/ukpga/2023/50',
    source_type: 'legislation',
    publication_date: '2023-10-26',
    keywords: ['legal', 'uk', 'online safety', 'regulation', 'compliance'],
    content:
      'An Act to make provision for and in connection with the regulation by OFCOM of certain internet services; for and in connection with communications offences; and for connected purposes. Part 3 sets duties of care for user-to-user and search services, including illegal content risk assessments.',
  }),
  datasetRecord('svc/svc-polymarket', 'fed-rate-cut-june-2025', {
    title: 'Will the Fed cut rates in June 2025?',
    url: 'https://polymarket.com/event/fed-decision-in-june',
    source_type: 'dataset',
    publication_date: '2025-03-20',
    keywords: ['prediction market', 'interest rates', 'federal reserve', 'odds'],
    content:
      'Market: Federal Reserve decision in June 2025. Outcome "25 bps cut" trading at 58 cents (58 percent implied probability); "no change" at 39 cents. Volume 14.2 million dollars.',
  }),
  datasetRecord('newswire/news', 'acme-globex-partnership-2025', {
    title: 'Acme Robotics and Globex announce interoperability partnership',
    url: 'https://newswire.example.com/releases/acme-globex-partnership-2025',
    source_type: 'news',
    news: true,
    publication_date: '2025-01-22',
    keywords: ['press release', 'partnership', 'company', 'competitor'],
    content:
      'Acme Robotics and Globex Corporation announced a partnership so that Acme Picker robots can be orchestrated by Globex factory control software. The companies said shared customers asked for a single control plane across mixed fleets. Financial terms were not disclosed.',
  }),
  datasetRecord('newswire/news', 'globex-acquires-voltstore-2024', {
    title: 'Globex to acquire energy storage maker VoltStore for $1.1 billion',
    url: 'https://newswire.example.com/releases/globex-acquires-voltstore-2024',
    source_type: 'news',
    news: true,
    publication_date: '2024-08-05',
    keywords: ['acquisition', 'batteries', 'company', 'deal'],
    content:
      'Globex Corporation agreed to acquire VoltStore, a maker of grid-scale battery systems, for 1.1 billion dollars in cash. The deal expands Globex energy storage segment and is expected to close in the first quarter of 2025, subject to regulatory approval.',
  }),
];
